package manifest

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses they enforce.
func Checks() []spec.Check {
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: "manifest/" + id, Kind: spec.KindTest, Clauses: clauses, Where: "manifest:" + fn}
	}
	return []spec.Check{
		t("syscall-pin", "TestSyscallPin", "S2.syscalls.versioned-set", "S41.typed.no-fail-syscall", "S2.K1.add-minor", "S2.K1.remove-major", "S2.K1.drift-fails", "S10.pins.drift", "I-MANIFEST-1"),
		t("syscall-kinds", "TestSyscallKindsAndFlags", "S2.syscalls.wave2-flagged", "A26.wire.partition"),
		t("event-schema-pin", "TestEventSchemaPin", "S4.log.known-types-pinned", "S4.K5.version-and-set-together", "S4.K5.add-minor", "S4.K5.remove-major",
			"S4.v1_23.shapes-frozen", "S10.pins.drift", "I-MANIFEST-5"),
		t("event-types-complete", "TestEventTypesComplete", "S4.log.known-types-pinned", "I-MANIFEST-2"),
		t("wire-derived", "TestWireMethodsDerived", "A26.wire.derived", "A26.wire.projection", "I-MANIFEST-4"),
		t("spi-tables", "TestSpiTables", "S7.spi.versioned-kit", "S7.spi.semver", "I-MANIFEST-3"),
		t("manifest-from-constants", "TestKernelManifestFromConstants", "S9.manifest.from-constants", "A26.wire.own-version"),
		t("compat-major", "TestCheckCompatibility", "S9.compat.shared-major"),
	}
}
