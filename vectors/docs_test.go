package vectors

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Reference: I-VECTOR-1 — every vector id docs/vectors.md names (in backquotes; a trailing * names
// every vector with that prefix) is a vector of the corpus, so the precedence table of §8 and the
// worked examples never point at a vector that does not exist.
func TestVectorsDocNamesExistingVectors(t *testing.T) {
	doc, err := os.ReadFile("../docs/vectors.md")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:fold|canonical|digest)/[a-z0-9._/-]+\\*?)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 20 {
		t.Fatalf("vectors/doc-names-vectors: docs/vectors.md names %d vectors, want the precedence table's", len(named))
	}
	for _, m := range named {
		id, prefix := strings.CutSuffix(m[1], "*")
		found := false
		for _, v := range c.Vectors {
			if v.ID == id || (prefix && strings.HasPrefix(v.ID, id)) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("vectors/doc-names-vectors [I-VECTOR-1]: docs/vectors.md names vector %q, want one of the corpus", m[1])
		}
	}
}
