package certify

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the broken bridges of certify/testdata/badbridge that the bridge kit must
// reject (TestBridgeKitRejectsBrokenBridges, TestBadBridges). The broken stores served behind a
// bridge are the kits/broken mutants; TestBrokenStoresBehindBridgeRejected records their kills
// over the wire under the same ids.
func Mutants() []spec.Mutant {
	const kit, bad, edges = "certify:TestBridgeKitRejectsBrokenBridges", "certify:TestBadBridges", "certify:TestBridgeEdgeCases"
	b := func(mode, defect, where string, caught []string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "bridge/badbridge/" + mode, Kind: "bridge", Defect: defect, Clauses: clauses, CaughtBy: caught, Where: where}
	}
	return append([]spec.Mutant{
		b("future", "claims EventStore SPI 3.0.0 in its handshake", kit, []string{"bridge/handshake"}, "I-BRIDGE-1", "I-STORE-21", "S7.spi.semver"),
		b("lying", "declares readRange, acquireFence and deleteExecution, which it does not serve", kit, []string{"bridge/declared-methods-answer"}, "I-BRIDGE-2", "I-STORE-24"),
		b("wrongcodes", "sends typed SPI errors with the wrong JSON-RPC codes", kit, []string{"bridge/error-codes", "bridge/refusal-order", "bridge/delete-fences", "bridge/edge-cases"}, "I-BRIDGE-3"),
		b("fragile", "answers an unknown method or a malformed request with an internal error", kit, []string{"bridge/unknown-method", "bridge/malformed-requests"}, "I-BRIDGE-9", "I-BRIDGE-2"),
		b("malformed", "answers with responses that do not match the bridge schema", bad, []string{"bridge/declared-methods-answer", "eventstore/append-read-order"}, "I-BRIDGE-4"),
		{ID: "bridge/edges/sequence-before-fence", Kind: "bridge", Defect: "refuses a stale-fenced append of a taken sequence as a conflict, so a zombie retries instead of stopping",
			Clauses: []string{"I-STORE-50"}, CaughtBy: []string{"bridge/refusal-order"}, Where: edges},
		{ID: "bridge/edges/executes-notifications", Kind: "bridge", Defect: "executes a request without an id (a notification) and answers nothing",
			Clauses: []string{"I-BRIDGE-10"}, CaughtBy: []string{"bridge/notifications"}, Where: edges},
	}, append(append(pluginBridgeMutants(), seamBridgeMutants()...), firstContactMutants()...)...)
}

// firstContactMutants are targets that do not answer the handshake of the kind asked for: each
// must end the run target-failed with its one cause at first contact (TestFirstContact).
func firstContactMutants() []spec.Mutant {
	m := func(name, defect string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "bridge/first-contact/" + name, Kind: "bridge", Defect: defect, Clauses: clauses,
			CaughtBy: []string{"certify/first-contact"}, Where: "certify:TestFirstContact"}
	}
	return []spec.Mutant{
		m("not-json", "answers its handshake with text that is not JSON", "I-BRIDGE-4", "I-CERT-30"),
		m("not-jsonrpc", "answers its handshake with JSON that is no JSON-RPC 2.0 response", "I-BRIDGE-4", "I-CERT-30"),
		m("web-page", "answers its handshake with a web page", "I-BRIDGE-4", "I-CERT-30"),
		m("kernel-as-store", "a kernel certified as a store: answers bridge.handshake with -32601", "I-BRIDGE-1", "I-CERT-30"),
		m("store-as-kernel", "a store bridge certified as a kernel: answers wire.handshake with -32601", "I-WIRE-23", "I-CERT-30"),
	}
}
