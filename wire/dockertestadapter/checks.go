package dockertestadapter

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{{ID: "dockertestadapter/certify-container", Kind: spec.KindTest,
		Clauses: []string{"I-BRIDGE-1", "I-BRIDGE-7"}, Where: "wire/dockertestadapter:TestCertifyDockertestContainer"}}
}
