package dockertestadapter_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The adapter provides a target without importing certify (imports run down the layers only).
func TestDoesNotImportCertify(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/loom-kernel/loom-conform/wire/dockertestadapter").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/loom-kernel/loom-conform/certify" {
			t.Errorf("wire/dockertestadapter depends on certify, want it to use wire/target only")
		}
	}
}
