package kernelkit

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the kernel kit's checks (run by `certify kernel`) and the tests that prove the kit.
func Checks() []spec.Check {
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "kits/kernelkit:" + where}
	}
	return append(Kit().SpecChecks(),
		t("wire/kit-reference", "TestReferenceKernelPassesKit", "I-WIRE-8", "A26.wire.kernel-authoritative", "I-WIRE-21", "I-WIRE-24"),
		t("wire/kit-broken-kernels", "TestBrokenKernelsRejected", "I-WIRE-8", "A26.wire.no-new-facts", "A26.wire.rings-kernel-side", "A26.wire.kernel-authoritative", "A26.wire.derived"),
		t("wire/wave2-goldens-advertised", "TestWave2GoldensAdvertised", "I-WIRE-21", "S2.syscalls.wave2-flagged"),
		t("wire/goldens-recorded", "TestWireGoldensRecorded", "I-WIRE-10", "I-WIRE-19", "I-WIRE-24"),
		t("wire/check-list", "TestCheckListDocumented", "I-WIRE-8"),
	)
}
