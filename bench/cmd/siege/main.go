// Command siege measures how long a fresh client's handshake and read of a 1-event execution take
// on serve-store (memory, sqlite) and serve-kernel while a few slow or long-lived clients press on
// them (servetest.Siege: 4 uploads declaring 16 MiB and sending a byte a second, 64 open streams,
// 12 clients reading a 12 MiB answer at 4 KB/s), and prints a Markdown table. A call not answered
// within -patience is shown as such.
//
//	siege -bin bin/loom-conform -patience 60s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/loom-kernel/loom-conform/internal/servetest"
)

func main() {
	bin := flag.String("bin", "bin/loom-conform", "the loom-conform binary")
	patience := flag.Duration("patience", time.Minute, "how long a call may take before it counts as unanswered")
	flag.Parse()
	fmt.Println("| server | beside | handshake | 1-event read |\n| --- | --- | ---: | ---: |")
	for _, t := range servetest.Targets() {
		s, err := servetest.Start(*bin, t.Args...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "siege:", err)
			os.Exit(1)
		}
		calls, err := t.Setup(context.Background(), s, 64)
		if err != nil {
			s.Kill()
			fmt.Fprintln(os.Stderr, "siege:", t.Name, err)
			os.Exit(1)
		}
		rows := servetest.Siege(s, t, calls, *patience)
		s.Kill()
		for i := 0; i+1 < len(rows); i += 2 {
			fmt.Printf("| %s | %s | %s | %s |\n", t.Name, rows[i].Attack, cell(rows[i], *patience), cell(rows[i+1], *patience))
		}
	}
}

func cell(a servetest.Answered, patience time.Duration) string {
	switch {
	case a.Err == nil:
		return a.Took.Round(time.Millisecond).String()
	case a.Took >= patience:
		return fmt.Sprintf("none in %v", patience)
	}
	return fmt.Sprintf("failed after %v", a.Took.Round(time.Millisecond))
}
