package bridge_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

func TestChecksNameKnownClauses(t *testing.T) {
	if err := spec.Validate(bridge.Checks()); err != nil {
		t.Fatal(err)
	}
}
