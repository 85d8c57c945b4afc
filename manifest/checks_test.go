package manifest

import (
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

func TestChecksNameKnownClauses(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatal(err)
	}
}
