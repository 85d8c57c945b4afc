package catalog

import (
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks returns every registered check of the project.
func Checks() []spec.Check {
	var out []spec.Check
	for _, part := range [][]spec.Check{
		manifest.Checks(),
		cliChecks(),
	} {
		out = append(out, part...)
	}
	return out
}

// cliChecks lists the tests of cmd/loom-conform, which cannot be imported.
func cliChecks() []spec.Check {
	return []spec.Check{
		{ID: "cli/compat-exit-codes", Kind: spec.KindTest, Clauses: []string{"S9.compat.exit-nonzero", "S9.compat.shared-major"}, Where: "cmd/loom-conform:TestCompatExitCodes"},
		{ID: "cli/manifest-json", Kind: spec.KindTest, Clauses: []string{"S9.manifest.from-constants", "S2.syscalls.available-iff-listed"}, Where: "cmd/loom-conform:TestManifestJSON"},
	}
}
