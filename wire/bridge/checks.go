package bridge

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the bridge protocol itself.
func Checks() []spec.Check {
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "wire/bridge:" + where}
	}
	return []spec.Check{
		t("bridge/eventstore-kit-over-wire", "TestEventStoreKitOverBridge", "I-BRIDGE-1", "I-BRIDGE-4", "I-BRIDGE-5"),
		t("bridge/error-round-trip", "TestErrorCodesRoundTrip", "I-BRIDGE-3"),
		t("bridge/conflict-data", "TestConflictDataDecoding", "I-BRIDGE-3", "I-BRIDGE-11"),
		t("bridge/fenced-current-optional", "TestFencedDataWithoutCurrent", "I-BRIDGE-3"),
		t("bridge/undeclared-unsupported", "TestUndeclaredMethodsAreUnsupported", "I-BRIDGE-2"),
		t("bridge/server-limits", "TestServerLimits", "I-BRIDGE-3", "I-BRIDGE-6"),
		t("bridge/strict-responses", "TestResponsesCheckedStrictly", "I-BRIDGE-4"),
		t("bridge/envelope-decoder", "TestBridgeUsesTheEnvelopeDecoder", "I-BRIDGE-4", "I-FOLD-22"),
		t("bridge/doc-examples", "TestDocExamplesMatchSchemas", "I-BRIDGE-4"),
		t("bridge/schema-agree", "TestSchemasAgreeWithJSONSchema", "I-BRIDGE-4", "I-PERF-10"),
		t("bridge/schema-compile", "TestSchemaCompilerRefusesWhatItDoesNotKnow", "I-BRIDGE-4"),
		t("bridge/dispatcher-kit-over-wire", "TestDispatcherKitOverBridge", "I-BRIDGE-1", "I-BRIDGE-3", "I-DISPATCH-1", "S6.placement.compute-target"),
		t("bridge/cross-site-refused", "TestBridgeRefusesCrossSiteRequests", "I-NET-1", "I-NET-2"),
		t("bridge/strict-requests", "TestBridgeRefusesInvalidUTF8AndRepeatedKeys", "I-NET-5"),
		t("bridge/depth-names-limit", "TestBridgeDepthRefusalNamesTheLimit", "I-NET-5"),
		t("bridge/numbers-exact", "TestBridgeKeepsNumbersExactly", "I-STORE-3", "I-NET-6"),
		t("bridge/streams-large-answers", "TestBridgeStreamsLargeAnswers", "I-NET-4"),
		t("bridge/bounded-reads", "TestBridgeBoundsConcurrentReads", "I-NET-4", "I-NET-3"),
		t("bridge/declared-too-large", "TestBridgeAnswersADeclaredLengthPastTheLimitAtOnce", "I-NET-4"),
		t("bridge/no-go-names", "TestBridgeErrorsNameNoGoType", "I-NET-5"),
		t("bridge/slow-reader-gives-way", "TestBridgeSlowReaderGivesWay", "I-NET-20", "I-NET-4"),
		{ID: "bridge/fuzz-server", Kind: spec.KindFuzz, Clauses: []string{"I-NET-5", "I-BRIDGE-10"}, Where: "wire/bridge:FuzzServerRequest"},
		{ID: "bridge/fuzz-client", Kind: spec.KindFuzz, Clauses: []string{"I-NET-5", "I-BRIDGE-4"}, Where: "wire/bridge:FuzzClientResponse"},
	}
}
