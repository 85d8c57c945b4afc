package clients

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the acceptance-client tests.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "wire/client-shell", Kind: spec.KindTest, Clauses: []string{"A26.acceptance", "I-WIRE-2", "I-WIRE-10"}, Where: "wire/clients:TestShellClient"},
		{ID: "wire/client-python", Kind: spec.KindTest, Clauses: []string{"A26.acceptance", "I-WIRE-2", "I-WIRE-10", "I-WIRE-20", "I-WIRE-21"}, Where: "wire/clients:TestPythonClient"},
		{ID: "wire/nonjson-off-wire", Kind: spec.KindTest, Clauses: []string{"I-WIRE-22", "I-GOLDEN-9"}, Where: "wire/clients:TestNonJSONPayloadOffTheWire"},
	}
}
