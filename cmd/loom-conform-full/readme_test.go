package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
)

// The counts README.md and the docs state are the tool's own, so they never drift: each
// pattern's number is the figure the registry holds.
func TestREADMECountsCurrent(t *testing.T) {
	for _, c := range []struct {
		file    string
		what    string
		pattern string // its one group is the number
		want    int
	}{
		{"README.md", "certify kernel's checks", `one check per obligation\s+\((\d+), each naming its clauses`, len(kernelkit.Kit().Checks)},
		{"README.md", "the broken kernels", `serves one of the (\d+) broken kernels`, len(kernelkit.BrokenKernels())},
		{"README.md", "the broken stores", `serves one of the (\d+) broken stores`, len(certify.BrokenStores())},
		{"docs/wire.md", "the broken kernels", `the kit proves itself on \((\d+): every`, len(kernelkit.BrokenKernels())},
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(c.pattern).FindSubmatch(b)
		if m == nil {
			t.Errorf("%s no longer states %s (%s): update this test with the sentence that does", c.file, c.what, c.pattern)
			continue
		}
		if n, _ := strconv.Atoi(string(m[1])); n != c.want {
			t.Errorf("%s says %s number %d; the tool has %d: write %s", c.file, c.what, n, c.want, fmt.Sprint(c.want))
		}
	}
}
