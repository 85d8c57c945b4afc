package manifest

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the drifted tables and broken checkers the manifest tests must reject: a
// syscall or event table changed without the version bump its pin demands, a manifest written
// apart from the constants, a compatibility checker that ignores the major version.
func Mutants() []spec.Mutant {
	m := func(id, defect, test, check string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "manifest/" + id, Kind: "manifest", Defect: defect, Clauses: clauses, CaughtBy: []string{check}, Where: "manifest:" + test}
	}
	const sys, ev = "manifest/syscall-pin", "manifest/event-schema-pin"
	return []spec.Mutant{
		m("syscall-table/added", "a fail syscall is added, without a MINOR bump of the ABI", "TestSyscallPin", sys, "S41.typed.no-fail-syscall",
			"S2.K1.add-minor", "S2.K1.drift-fails", "S10.pins.drift", "S2.syscalls.versioned-set"),
		m("syscall-table/removed", "a syscall is removed without a MAJOR bump", "TestSyscallPin", sys,
			"S2.K1.remove-major", "S2.K1.drift-fails", "S10.pins.drift"),
		m("syscall-table/repurposed", "a syscall changes kind without a MAJOR bump", "TestSyscallPin", sys,
			"S2.K1.remove-major", "S2.K1.drift-fails"),
		m("syscall-table/future", "a syscall is dated after the ABI version that lists it", "TestSyscallPin", sys,
			"S2.syscalls.versioned-set", "S2.K1.drift-fails"),
		m("event-schema/type-added-same-version", "an event type is added without a new schema version", "TestEventSchemaPin", ev,
			"S4.K5.add-minor", "S4.K5.version-and-set-together", "S4.log.known-types-pinned", "S10.pins.drift"),
		m("event-schema/version-bumped-unpinned", "the schema version moves with no pin entry for it", "TestEventSchemaPin", ev,
			"S4.K5.version-and-set-together", "S10.pins.drift"),
		m("event-schema/type-removed", "an event type is removed within the major version", "TestEventSchemaPin", ev,
			"S4.K5.remove-major", "S4.log.known-types-pinned"),
		m("event-schema/set-changed-on-patch", "the type set changes on a PATCH version", "TestEventSchemaPin", ev,
			"S4.K5.add-minor", "S4.K5.version-and-set-together"),
		m("event-schema/wave2-kind-renamed", "a later MINOR renames the Wave 2 kind EXECUTION_CONTINUED, pinned as if the change were additive", "TestEventSchemaPin", ev,
			"S4.v1_23.shapes-frozen", "S4.K5.remove-major"),
		m("kernel-manifest/stale-version", "the manifest states an ABI version other than the constant", "TestKernelManifestFromConstants",
			"manifest/manifest-from-constants", "S9.manifest.from-constants"),
		m("kernel-manifest/stale-table", "the manifest lists a syscall table other than the package's", "TestKernelManifestFromConstants",
			"manifest/manifest-from-constants", "S9.manifest.from-constants"),
		m("spi-table/method-after-version", "a seam's table lists a method dated after the seam's version", "TestSpiTables",
			"manifest/spi-tables", "S7.spi.versioned-kit", "S7.spi.semver"),
		m("spi-table/method-twice", "a seam's table lists a method twice", "TestSpiTables",
			"manifest/spi-tables", "S7.spi.versioned-kit"),
		m("compat/any-major", "a compatibility check that accepts any major version", "TestCheckCompatibility",
			"manifest/compat-major", "S9.compat.shared-major"),
		m("compat/same-minor-required", "a compatibility check that also requires equal minors", "TestCheckCompatibility",
			"manifest/compat-major", "S9.compat.shared-major"),
	}
}
