package target

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{{ID: "target/pause-retries-freeze", Kind: spec.KindTest, Clauses: []string{"I-BRIDGE-7", "I-BRIDGE-6"},
		Where: "wire/target:TestPauseRetriesFreezeFailures"}}
}
