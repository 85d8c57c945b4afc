// Command gen writes the generated vectors (vectors/corpus/generated); see package
// vectors/internal/generate. `go generate ./vectors` runs it with the committed corpus's options.
//
//	go run ./vectors/internal/gen -out vectors/corpus/generated [-seed 1] [-logs 4] [-values 24]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/loom-kernel/loom-conform/vectors/internal/generate"
)

func main() {
	out := flag.String("out", "corpus/generated", "directory to (re)write")
	var o generate.Options
	flag.IntVar(&o.Seed, "seed", 1, "base seed")
	flag.IntVar(&o.Logs, "logs", 4, "generated logs per profile")
	flag.IntVar(&o.Values, "values", 24, "generated canonical and digest vectors each")
	flag.Parse()
	n, err := generate.Write(*out, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("gen: wrote %d vectors to %s\n", n, *out)
}
