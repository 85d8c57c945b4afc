package kits

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists every check of the seven SPI kits as spec.Check values (Kind kit, Where the kit name).
func Checks() []spec.Check {
	var out []spec.Check
	out = append(out, EventStoreKit().SpecChecks()...)
	out = append(out, SnapshotStoreKit().SpecChecks()...)
	out = append(out, ArchiveStoreKit().SpecChecks()...)
	out = append(out, BranchRegistryKit().SpecChecks()...)
	out = append(out, ContentStoreKit().SpecChecks()...)
	out = append(out, DurableStateStoreKit().SpecChecks()...)
	out = append(out, ReadModelStoreKit().SpecChecks()...)
	out = append(out, ExecutionDispatcherKit().SpecChecks()...)
	return out
}
