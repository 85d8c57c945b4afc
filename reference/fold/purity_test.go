package fold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/srcimports"
)

// forbiddenImports could give the fold a wall clock, randomness or ambient input.
var forbiddenImports = map[string]bool{"time": true, "os": true, "math/rand": true, "math/rand/v2": true, "crypto/rand": true,
	"syscall": true, "net": true, "net/http": true, "os/exec": true, "runtime": true}

// ambientImports returns the forbidden packages src imports.
func ambientImports(name string, src []byte) ([]string, error) {
	paths, err := srcimports.Of(name, src)
	var out []string
	for _, path := range paths {
		if forbiddenImports[path] {
			out = append(out, path)
		}
	}
	return out, err
}

// Reference: spec §1 P2 — the fold reads no wall clock, randomness or ambient input: no
// non-test file of this package imports a package that could provide them.
func TestFoldImportsNoAmbientInput(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bad, err := ambientImports(f, src)
		if err != nil {
			t.Fatal(err)
		}
		scanned++
		for _, path := range bad {
			t.Errorf("fold/pure [S1.P2.fold-pure]: %s imports %s, want no ambient input in the fold", f, path)
		}
	}
	// The scan must have seen the fold itself, or it proves nothing.
	if scanned < 5 {
		t.Fatalf("fold/pure [S1.P2.fold-pure]: scanned %d non-test files of reference/fold, want the whole package (≥ 5)", scanned)
	}
	// A fold file reading the clock is caught.
	clock := []byte("package fold\n\nimport \"time\"\n\nfunc stampNow() int64 { return time.Now().UnixMilli() }\n")
	if bad, err := ambientImports("stamp.go", clock); err != nil || len(bad) == 0 {
		t.Errorf("ambientImports(a file importing time) = %v, %v; want time reported", bad, err)
	} else {
		proof.Rejected(t, "fold/purity/reads-clock", "fold/pure", "fold/pure [S1.P2.fold-pure]: stamp.go imports "+bad[0])
	}
}
