package faultproxy

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{{ID: "faultproxy/cut", Kind: spec.KindTest, Clauses: []string{"I-BRIDGE-7"},
		Where: "wire/faultproxy:TestCutBreaksInFlightOnly"}}
}
