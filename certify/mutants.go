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
		b("wrongcodes", "sends typed SPI errors with the wrong JSON-RPC codes", kit, []string{"bridge/error-codes"}, "I-BRIDGE-3"),
		b("fragile", "answers an unknown method or a malformed request with an internal error", kit, []string{"bridge/unknown-method", "bridge/malformed-requests"}, "I-BRIDGE-9", "I-BRIDGE-2"),
		b("malformed", "answers with responses that do not match the bridge schema", bad, []string{"bridge/declared-methods-answer", "eventstore/append-read-order"}, "I-BRIDGE-4"),
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

// pluginBridgeMutants are the bridges that break the plugin-tier wire forms
// (TestPluginWireFormsRejectBrokenBridges).
func pluginBridgeMutants() []spec.Mutant {
	const where = "certify:TestPluginWireFormsRejectBrokenBridges"
	return []spec.Mutant{
		{ID: "bridge/plugin/abort-unknown-refused", Kind: "bridge", Defect: "refuses streamAbort of a stream it does not know (finished or never opened) instead of doing nothing",
			Clauses: []string{"I-PLUGIN-11"}, CaughtBy: []string{"bridge/plugin-wire-forms"}, Where: where},
		{ID: "bridge/plugin/abort-keeps-stream", Kind: "bridge", Defect: "answers streamAbort but keeps the stream open, so a later streamCommit makes the aborted content visible",
			Clauses: []string{"I-PLUGIN-11"}, CaughtBy: []string{"bridge/plugin-wire-forms"}, Where: where},
		{ID: "bridge/plugin/lenient-limit", Kind: "bridge", Defect: "coerces a non-integer or string query limit to an integer instead of refusing it",
			Clauses: []string{"I-PLUGIN-8"}, CaughtBy: []string{"bridge/plugin-wire-forms"}, Where: where},
		{ID: "bridge/plugin/unchecked-offset", Kind: "bridge", Defect: "appends a stream chunk wherever it is sent, without checking its offset",
			Clauses: []string{"I-PLUGIN-11"}, CaughtBy: []string{"bridge/plugin-wire-forms"}, Where: where},
	}
}

// seamBridgeMutants are bridges serving only the plugin-tier seams or only the dispatcher that
// break a bridge-level rule there (TestSeamOnlyBridges).
func seamBridgeMutants() []spec.Mutant {
	const where = "certify:TestSeamOnlyBridges"
	m := func(name, defect string, clauses []string, check string) spec.Mutant {
		return spec.Mutant{ID: "bridge/seams/" + name, Kind: "bridge", Defect: defect, Clauses: clauses, CaughtBy: []string{check}, Where: where}
	}
	return []spec.Mutant{
		m("plugin-executes-notifications", "a bridge serving only plugin-tier seams executes a request without an id", []string{"I-BRIDGE-10"}, "bridge/notifications"),
		m("dispatcher-executes-notifications", "a bridge serving only the dispatcher executes a request without an id", []string{"I-BRIDGE-10"}, "bridge/notifications"),
		m("lease-lost-as-internal", "a lost lease crosses the bridge as an internal error (-32603)", []string{"I-BRIDGE-3"}, "bridge/error-codes"),
		m("null-version-unconditional", "a set with ifVersion null is taken for an unconditional set and overwrites the key", []string{"I-BRIDGE-13"}, "bridge/malformed-requests"),
		m("lone-surrogates-replaced", "a bridge serving only plugin-tier seams decodes a lone surrogate in a key as U+FFFD and stores under that key", []string{"I-STORE-81"}, "bridge/lone-surrogate-ids"),
	}
}
