package lifecycle

import "github.com/loom-kernel/loom-conform/spec"

// Mutant is one Hooks field as a registered mutant: how to set it and what it breaks.
type Mutant struct {
	spec.Mutant
	Set func(*Hooks)
}

// HookMutants lists every broken lifecycle, each with the check that must reject it.
func HookMutants() []Mutant {
	const where = "reference/lifecycle:TestBrokenLifecyclesRejected"
	m := func(name, defect, check string, set func(*Hooks), clauses ...string) Mutant {
		return Mutant{spec.Mutant{ID: "lifecycle/loglifecycle/" + name, Kind: "lifecycle", Defect: defect,
			Clauses: clauses, CaughtBy: []string{check}, Where: where}, set}
	}
	return []Mutant{
		m("truncate-before-archive", "compact deletes the envelopes before it archives them", "lifecycle/compact-archives-first",
			func(h *Hooks) { h.TruncateBeforeArchive = true }, "S7.as.compact-archives-first", "I-LIFECYCLE-1"),
		m("archive-one-short", "compact archives one envelope fewer than it removes", "lifecycle/compact-archives-first",
			func(h *Hooks) { h.ArchiveOneShort = true }, "S7.as.compact-archives-first"),
		m("compact-without-archive", "compact truncates the log when no ArchiveStore is wired", "lifecycle/compact-needs-archive",
			func(h *Hooks) { h.CompactWithoutArchive = true }, "S7.as.compact-archives-first"),
		m("falls-back-to-delete-execution", "on a store without deleteThrough, compact deletes the whole execution", "lifecycle/delete-through-no-fallback",
			func(h *Hooks) { h.FallBackToDelete = true }, "S7.es.delete-through-no-fallback"),
		m("reads-archive-on-replay", "replay folds the archive ahead of the log", "lifecycle/archive-not-read",
			func(h *Hooks) { h.ReadArchiveOnReplay = true }, "S7.as.not-read-on-replay"),
		m("prunes-latest-snapshot", "pruneSnapshots deletes the latest snapshot too", "lifecycle/prune-snapshots",
			func(h *Hooks) { h.PruneLatest = true }, "S7.ss.prune-range", "I-LIFECYCLE-2"),
		m("dry-run-deletes", "pruneSnapshots({dryRun}) deletes", "lifecycle/prune-snapshots",
			func(h *Hooks) { h.PruneIgnoresDryRun = true }, "I-LIFECYCLE-2"),
		m("claims-fencing", "reports fencing on a store that omits acquireFence", "lifecycle/no-fence-single-node",
			func(h *Hooks) { h.ClaimFencing = true }, "S7.es.no-fence-single-node"),
		m("ignores-store-now", "uses the injected clock even when the store has storeNow", "lifecycle/store-now-fallback",
			func(h *Hooks) { h.IgnoreStoreNow = true }, "S7.es.store-now"),
		m("no-clock-fallback", "fails when the store has no storeNow instead of using the injected clock", "lifecycle/store-now-fallback",
			func(h *Hooks) { h.NoClockFallback = true }, "S7.es.store-now-fallback"),
	}
}

// Mutants registers the broken lifecycles (catalog.Mutants).
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, m := range HookMutants() {
		out = append(out, m.Mutant)
	}
	return out
}
