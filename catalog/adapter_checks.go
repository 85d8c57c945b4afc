package catalog

import "github.com/loom-kernel/loom-conform/spec"

// adapterChecks lists the tests of wire/dockertestadapter. They are declared here, not in that
// package, so that the catalog (and with it every command of the CLI) does not import
// ory/dockertest: its package initialisation (logrus, the compose schema loader, terminfo, YAML)
// would run at every start of the binary, for a library no command calls.
func adapterChecks() []spec.Check {
	return []spec.Check{{ID: "dockertestadapter/certify-container", Kind: spec.KindTest,
		Clauses: []string{"I-BRIDGE-1", "I-BRIDGE-7"}, Where: "wire/dockertestadapter:TestCertifyDockertestContainer"}}
}
