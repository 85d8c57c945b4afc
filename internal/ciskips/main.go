// Command ciskips reads the JUnit file of a test run and fails when any test was skipped for a
// reason other than a conformance kit's own verdict. With CI=true nothing may skip (a missing
// service or tool fails its test, internal/testenv); a kit check skipped because the store does not
// declare the method it exercises, or claims an older SPI version, is the kit's named verdict and
// counts as judged.
//
//	go run ./internal/ciskips test-results/junit.xml
package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/junit"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ciskips JUNIT.xml")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ciskips:", err)
		os.Exit(2)
	}
	defer f.Close()
	bad, n, err := Unexpected(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ciskips: %s: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	if len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "ciskips: %d test(s) skipped under CI=true, where every test must run:\n  %s\n", len(bad), strings.Join(bad, "\n  "))
		os.Exit(1)
	}
	fmt.Printf("ciskips: %d skipped test(s), every one a conformance kit's capability verdict\n", n)
}

// kitSkips are the reasons a kit gives for a check outside the target's claim (kits.skipReason).
var kitSkips = []string{"target does not implement ", " SPI ", "target held to "}

// Unexpected lists "package test: reason" for every skipped case whose reason is not a kit's
// capability skip, and counts the skipped cases.
func Unexpected(r io.Reader) (bad []string, skipped int, err error) {
	var doc junit.Suites
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, 0, err
	}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Skipped == nil {
				continue
			}
			skipped++
			text := c.Skipped.Message + "\n" + c.Skipped.Body
			if isKitSkip(text) {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s %s: %s", c.ClassName, c.Name, firstReason(text)))
		}
	}
	return bad, skipped, nil
}

func isKitSkip(text string) bool {
	return strings.Contains(text, kitSkips[0]) || strings.Contains(text, kitSkips[2]) && strings.Contains(text, kitSkips[1])
}

// firstReason is the skip's message line (gotestsum puts the test's output in the body).
func firstReason(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "=== ") && !strings.HasPrefix(l, "--- ") {
			return l
		}
	}
	return "(no message)"
}
