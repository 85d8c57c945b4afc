package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Every check names known clauses, and check ids are unique across the project.
func TestChecksNameKnownClauses(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatal(err)
	}
}

// A test-kind check must point at a test function that exists, so coverage cannot be claimed by a
// check that does not run.
func TestCheckedTestsExist(t *testing.T) {
	funcs := testFuncs(t)
	for _, c := range Checks() {
		switch c.Kind {
		case spec.KindTest, spec.KindProperty, spec.KindFuzz:
			if !funcs[c.Where] {
				t.Errorf("check %s: Where %q names no test function", c.ID, c.Where)
			}
		}
	}
}

// testFuncs lists every top-level function of every _test.go file of the module as
// "<dir>:<Func>".
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	root := filepath.Join("..")
	funcs := map[string]bool{} // "<dir>:<Func>"
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[filepath.ToSlash(rel)+":"+fd.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return funcs
}
