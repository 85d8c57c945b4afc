package kernelprops

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Reference: spec §1, §2, §3 — the reference kernel satisfies every property of the kit.
func TestReferenceKernelProperties(t *testing.T) {
	Run(t, Reference())
}

// Reference: COMMON rules — every check names known clauses and a test function that exists.
func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatalf("kernelprops/checks-valid: spec.Validate(Checks()) = %v", err)
	}
	fns := map[string]bool{}
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
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
		if c.Kind == spec.KindKit {
			continue
		}
		if dir != "kits/kernelprops" || !fns[fn] {
			t.Errorf("kernelprops/checks-valid: check %s names %s, which is not a test of this package", c.ID, c.Where)
		}
	}
}
