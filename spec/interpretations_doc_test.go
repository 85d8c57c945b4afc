package spec

import (
	"bytes"
	"os"
	"testing"
)

// docs/interpretations.md is generated from the registry and must be current.
func TestInterpretationsDocCurrent(t *testing.T) {
	var b bytes.Buffer
	if err := RenderInterpretations(&b); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../docs/interpretations.md")
	if err != nil {
		t.Fatalf("read docs/interpretations.md: %v (run make docs)", err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Fatal("docs/interpretations.md is stale: run `make docs` (go run ./cmd/loom-conform-full spec --interpretations > docs/interpretations.md)")
	}
}
