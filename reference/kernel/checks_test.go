package kernel

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, obj := range af.Scope.Objects {
			if obj.Kind.String() == "func" {
				funcs[name] = true
			}
		}
	}
	for _, c := range Checks() {
		name := c.Where[strings.Index(c.Where, ":")+1:]
		if !funcs[name] {
			t.Errorf("check %s: Where %s names no test function", c.ID, c.Where)
		}
	}
}
