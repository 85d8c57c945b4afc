package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
)

// The counts README.md states are the tool's own, so they never drift: each pattern's number is
// the figure the registry holds.
func TestREADMECountsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what    string
		pattern string // its one group is the number
		want    int
	}{
		{"certify kernel's checks", `one check per obligation\s+\((\d+), each naming its clauses`, len(kernelkit.Kit().Checks)},
		{"the broken kernels", `serves one of the (\d+) broken kernels`, len(kernelkit.BrokenKernels())},
		{"the broken stores", `serves one of the (\d+) broken stores`, len(certify.BrokenStores())},
	} {
		m := regexp.MustCompile(c.pattern).FindSubmatch(b)
		if m == nil {
			t.Errorf("README.md no longer states %s (%s): update this test with the sentence that does", c.what, c.pattern)
			continue
		}
		if n, _ := strconv.Atoi(string(m[1])); n != c.want {
			t.Errorf("README.md says %s number %d; the tool has %d: write %s", c.what, n, c.want, fmt.Sprint(c.want))
		}
	}
}
