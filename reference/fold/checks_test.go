package fold

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// testFuncs returns the names of the top-level functions of the _test.go files in dir.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	fns := map[string]bool{}
	fset := token.NewFileSet()
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
	return fns
}

// Reference: COMMON rules — every check names known clauses and points at a function that exists.
func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatalf("fold/checks-valid: spec.Validate(Checks()) = %v", err)
	}
	for _, c := range Checks() {
		dir, fn, _ := strings.Cut(c.Where, ":")
		if !testFuncs(t, filepath.Join("..", "..", dir))[fn] {
			t.Errorf("fold/checks-valid: check %s: Where %q names no test function", c.ID, c.Where)
		}
	}
}
