package fold

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Reference: spec §1 P2 — the fold reads no wall clock, randomness or ambient input: no
// non-test file of this package imports a package that could provide them.
func TestFoldImportsNoAmbientInput(t *testing.T) {
	forbidden := map[string]bool{"time": true, "os": true, "math/rand": true, "math/rand/v2": true, "crypto/rand": true,
		"syscall": true, "net": true, "net/http": true, "os/exec": true, "runtime": true}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[path] {
				t.Errorf("fold/pure [S1.P2.fold-pure]: %s imports %s, want no ambient input in the fold", f, path)
			}
		}
	}
}
