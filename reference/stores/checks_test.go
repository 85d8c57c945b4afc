package stores_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/reference/stores"
	"github.com/loom-kernel/loom-conform/spec"
)

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(stores.Checks()); err != nil {
		t.Fatal(err)
	}
}
