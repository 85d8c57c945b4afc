package carrier

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the carrier (the kernel kit's checks are kits/kernelkit's).
func Checks() []spec.Check {
	t := func(id, where string, kind spec.CheckKind, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: kind, Clauses: clauses, Where: "wire/carrier:" + where}
	}
	return []spec.Check{
		t("wire/derived-methods", "TestDerivedMethodsFollowTable", spec.KindTest, "A26.wire.derived", "A26.wire.partition", "A26.carrier.methods"),
		t("wire/acceptance-in-process", "TestWireRunEqualsInProcess", spec.KindTest, "A26.acceptance", "I-WIRE-10"),
		t("wire/parallel-over-wire", "TestWireParallelEqualsInProcess", spec.KindTest, "A26.acceptance", "I-WIRE-11"),
		t("wire/parallel-bad-calls", "TestWireParallelBadCalls", spec.KindTest, "I-WIRE-11", "I-WIRE-6"),
		t("wire/parallel-never-wedges", "TestWireParallelNeverWedges", spec.KindTest, "I-WIRE-52", "I-WIRE-11"),
		t("wire/stream-ends-cleanly", "TestWireStreamEndsCleanly", spec.KindTest, "I-NET-4", "I-WIRE-51"),
		t("wire/goldens-over-wire", "TestWireGoldensEqualInProcess", spec.KindTest, "A26.acceptance", "I-WIRE-10", "I-WIRE-20", "I-WIRE-21"),
		t("wire/deliver", "TestDeliverOverWire", spec.KindTest, "I-WIRE-20", "S4.v1_23.message-consumed", "S4.v1_23.wait-addressed-resume"),
		t("wire/disconnect-mid-step", "TestDisconnectMidStepRunsEffectOnce", spec.KindTest, "A26.wire.kernel-authoritative", "I-WIRE-4"),
		t("wire/unwired-identical", "TestUnwiredIdentical", spec.KindTest, "A26.wire.unwired-identical", "S1.G2.unwired-byte-identical"),
		t("wire/bad-input", "TestBadInputTyped", spec.KindTest, "I-WIRE-6", "I-WIRE-1"),
		t("wire/fuzz-decoder", "FuzzDecodeRequest", spec.KindFuzz, "I-WIRE-6", "I-NET-5", "I-NET-6"),
		t("wire/numbers-refused", "TestWireRefusesNumbersTheKernelWouldChange", spec.KindTest, "I-NET-6"),
		t("wire/strict-requests", "TestWireRefusesInvalidUTF8AndRepeatedKeys", spec.KindTest, "I-NET-5"),
		t("wire/depth-names-limit", "TestWireDepthRefusalNamesTheLimit", spec.KindTest, "I-NET-5"),
		t("wire/cross-site-refused", "TestWireRefusesCrossSiteRequests", spec.KindTest, "I-NET-1", "I-NET-2"),
		t("wire/stream-chunk-strict", "TestWireStreamChunkIsStrict", spec.KindTest, "I-NET-5", "I-WIRE-7"),
		t("wire/stream-line-limit", "TestWireStreamLineLimit", spec.KindTest, "I-NET-4", "I-WIRE-7"),
		t("wire/no-object-id", "TestWireNeverEchoesAnObjectID", spec.KindTest, "I-NET-5"),
		t("wire/refusals-named", "TestWireRefusalsNameTheLimitAndNoGoType", spec.KindTest, "I-NET-4", "I-NET-5"),
		t("wire/state-log-streamed", "TestWireStateLogStreamedAsMarshalled", spec.KindTest, "I-NET-4"),
		t("wire/kernel-bounds", "TestKernelBounds", spec.KindTest, "I-NET-21"),
		t("wire/stream-incremental", "TestStreamAcksEachChunk", spec.KindTest, "I-WIRE-7", "A26.wire.partition"),
		t("wire/resume-durable", "TestResumeWithoutDriverSurvivesRestart", spec.KindTest, "A26.wire.kernel-authoritative", "I-WIRE-5", "I-WIRE-3"),
		t("wire/goldens-unwired", "TestGoldensUnwiredWithCarrier", spec.KindTest, "A26.wire.unwired-identical", "S1.G2.unwired-byte-identical"),
		t("wire/doc-exchanges", "TestDocExchanges", spec.KindTest, "I-WIRE-1", "I-WIRE-7", "A26.carrier.methods"),
	}
}
