package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Reference: I-PERF-10 — the command links none of the packages whose initialisers every command
// paid although few use them: the general JSON Schema validator (its meta-schemas compiled at
// start; the bridge compiles its own schemas on first use), the container SDKs (internal/dockerengine
// speaks to the engine) and an assertion library. (The kits take a testing.TB and report with
// go-cmp and rapid: those stay, initialised at start, docs/performance.md.)
func TestBinaryLinksNoStartUpWeight(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/santhosh-tekuri/jsonschema",
		"github.com/testcontainers/testcontainers-go",
		"github.com/ory/dockertest",
		"github.com/stretchr/testify",
	}
	for _, p := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("cli/deps [I-PERF-10]: go list -deps ./cmd/loom-conform-full has %s, want none of %s", p, f)
			}
		}
	}
}
