package foldprops

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Reference: spec §3, §4 — the reference fold satisfies every property of the kit.
func TestReferenceFoldProperties(t *testing.T) {
	Run(t, Reference())
}

// Reference: COMMON rules — every check names known clauses and a test function that exists.
func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatalf("foldprops/checks-valid: spec.Validate(Checks()) = %v", err)
	}
	fset := token.NewFileSet()
	fns := map[string]bool{}
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				fns[fd.Name.Name] = true
			}
		}
	}
	for _, c := range Checks() {
		dir, fn, _ := strings.Cut(c.Where, ":")
		if dir != "kits/foldprops" || !fns[fn] {
			t.Errorf("foldprops/checks-valid: check %s: Where %q names no test function here", c.ID, c.Where)
		}
	}
}
