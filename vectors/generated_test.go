package vectors_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/loom-kernel/loom-conform/vectors/internal/generate"
)

// The committed generated corpus is exactly what `go generate ./vectors` writes: regeneration is
// reproducible, and a change of the property kit's generators or of the reference fold shows up
// here as a diff a person reads (regenerate with go generate).
func TestGeneratedCorpusCurrent(t *testing.T) {
	dir := t.TempDir()
	if _, err := generate.Write(dir, generate.Options{}); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error { //nolint:errcheck
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			want[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	got := map[string][]byte{}
	filepath.WalkDir("corpus/generated", func(p string, d fs.DirEntry, err error) error { //nolint:errcheck
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel("corpus/generated", p)
			got[rel], _ = os.ReadFile(p)
		}
		return nil
	})
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("corpus/generated/%s: missing; run go generate ./vectors", name)
		} else if !bytes.Equal(g, w) {
			t.Errorf("corpus/generated/%s: differs from what go generate writes; run go generate ./vectors and review the diff", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("corpus/generated/%s: not generated any more; run go generate ./vectors", name)
		}
	}
	if len(want) < 50 {
		t.Errorf("generated %d vectors, want at least 50", len(want))
	}
}
