package userspace

import (
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// TestChecksValid: every check names known clauses and a unique id.
func TestChecksValid(t *testing.T) {
	if err := spec.Validate(Checks()); err != nil {
		t.Fatalf("userspace/checks-valid: spec.Validate(Checks()) = %v, want nil", err)
	}
}
