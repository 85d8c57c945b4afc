// Command jsondecode reads the log file it is given and decodes it with jsonbase.Decode: the
// baseline of the fold command's speed, end to end as `loom-conform fold LOG` runs (a child
// process of the same toolchain; fitness gates perf/cli-fold-*, make perf-cli).
package main

import (
	"fmt"
	"os"

	"github.com/loom-kernel/loom-conform/internal/jsonbase"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jsondecode LOG")
		os.Exit(2)
	}
	log, err := os.ReadFile(os.Args[1])
	if err == nil {
		err = jsonbase.Decode(log)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "jsondecode:", err)
		os.Exit(1)
	}
}
