package broken

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// gap is one broken store of the cross-seam rule classes (ids on every method, byte-order
// listings, equality by value, refusals after valid items, atomicity seen by readers, whole-record
// replacement, the storeNow unit), with the clause ids it violates.
type gap[T any] struct {
	Store[T]
	Clauses []string
}

func g[T any](name, defect, catch string, clauses []string, mk func() T) gap[T] {
	return gap[T]{Store[T]{Name: name, Defect: defect, Catch: catch, New: mk}, clauses}
}

func gapEventStores() []gap[spi.EventStore] {
	type E = spi.EventStore
	ids := []string{"I-STORE-4", "I-STORE-27"}
	return []gap[E]{
		g("delete-folds-case", "deleteExecution matches ids case-insensitively, deleting an id that differs only by case", "eventstore/ids-apart-every-method", ids,
			func() E { return deleteFoldsCase{newES()} }),
		g("fence-folds-case", "fence tokens are keyed by the lower-cased id, so fencing one id fences another that differs only by case", "eventstore/ids-apart-every-method", ids,
			func() E { return newFenceFoldsCase() }),
		g("fence-if-folds-case", "acquireFenceIf reads the current token case-insensitively, so another id's fence fails the expectation", "eventstore/ids-apart-every-method", ids,
			func() E { return newFenceIfFoldsCase() }),
		g("listing-collated", "listExecutionsPage orders ids case-insensitively (a before B)", "eventstore/list-executions-byte-order", []string{"I-STORE-13", "I-STORE-28"},
			func() E { return listingCollated{newES(), collate} }),
		g("append-resend-noop", "an append re-sending the stored envelopes is taken for an idempotent retry and succeeds", "eventstore/append-resend-conflict", []string{"I-STORE-1", "I-STORE-29"},
			func() E { return appendResendNoop{newES()} }),
		g("validates-lazily", "a batch is written envelope by envelope, each validated as it is written, so valid ones before a bad one land", "eventstore/invalid-after-valid", []string{"I-STORE-2", "I-STORE-30"},
			func() E { return validatesLazily{newES()} }),
		g("append-visible-midway", "a batch is checked whole, then inserted one envelope per statement without a transaction; readers see part of it", "eventstore/readers-whole-append", []string{"I-STORE-2", "I-STORE-31"},
			func() E { return appendVisibleMidway{newWatchedES(), &sync.Mutex{}} }),
		g("delete-through-visible-midway", "deleteThrough deletes one sequence per statement; readers see a partly deleted prefix", "eventstore/readers-whole-delete-through", []string{"S7.es.delete-through-atomic", "I-STORE-31"},
			func() E { return deleteThroughVisibleMidway{newWatchedES()} }),
		g("replica-lag", "reads are served by an asynchronous replica about a millisecond behind the acknowledged appends", "eventstore/linearizable", []string{"I-STORE-14"},
			func() E { return newReplicaLag() }),
		g("stale-read-under-contention", "reads answer from a cache while two or more appends are in flight", "eventstore/linearizable", []string{"I-STORE-14"},
			func() E { return staleUnderContention{newES(), &atomic.Int64{}, &sync.Map{}} }),
		g("fence-if-race-both-win", "acquireFenceIf compares and then writes in two steps, so racing calls with one expectation can both win", "eventstore/fence-if-race", []string{"I-STORE-7"},
			func() E { return newFenced(&fenceBook{racy: true}) }),
		g("copy-prefix-visible-midway", "copyPrefix copies in chunks of ten, one statement each; readers of the target see part of the prefix", "eventstore/readers-whole-copy-prefix", []string{"I-STORE-11", "I-STORE-31"},
			func() E { return copyPrefixVisibleMidway{newWatchedES()} }),
		g("delete-execution-visible-midway", "deleteExecution deletes in chunks of ten, one statement each; readers see part of the log", "eventstore/readers-whole-delete-execution", []string{"I-STORE-12", "I-STORE-31"},
			func() E { return deleteExecutionVisibleMidway{newWatchedES()} }),
		g("store-now-seconds-unit", "storeNow is in seconds (refused at MUST level by the unit check)", "eventstore/store-now-unit", []string{"I-STORE-26"},
			func() E { return nowInSeconds{newES()} }),
		g("store-now-micros", "storeNow is in microseconds", "eventstore/store-now-unit", []string{"I-STORE-26"},
			func() E { return nowInMicros{newES()} }),
		g("fence-check-then-write", "a fenced append checks the token, then writes in a second step, so a stale holder's append lands after a newer acquireFence returned and a read saw nothing", "eventstore/fence-race", []string{"S6.fencing.zombie", "I-STORE-6"},
			func() E { return newFenceCheckThenWrite() }),
		g("delimited-prefix-scan", "rows are keyed <id>:<sequence> and read scans the key prefix <id>:, so reading x also returns the log of x:q", "eventstore/ids-apart-every-method", ids,
			func() E { return delimitedScanES{newES(), ":"} }),
		g("listing-utf16-order", "listExecutionsPage orders ids by UTF-16 code units (Java, JavaScript and .NET string order): characters beyond U+FFFF before U+E000–U+FFFF", "eventstore/list-executions-byte-order", []string{"I-STORE-13", "I-STORE-28"},
			func() E { return listingCollated{newES(), utf16Less} }),
	}
}

func gapSnapshotStores() []gap[spi.SnapshotStore] {
	type S = spi.SnapshotStore
	return []gap[S]{
		g("snapshots-fold-case", "snapshots are keyed by the lower-cased execution id", "snapshotstore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() S { return snapshotsFoldCase{newSS()} }),
		g("sealed-sticky", "an unsealed save at a sequence saved sealed keeps the sealed flag", "snapshotstore/save-replaces-whole", []string{"I-STORE-15", "I-STORE-16", "I-STORE-32"},
			func() S { return sealedSticky{newSS(), &sync.Mutex{}, map[string]bool{}} }),
		g("state-merged", "a second save merges the new state's keys into the old state", "snapshotstore/save-replaces-whole", []string{"I-STORE-15", "I-STORE-32"},
			func() S { return stateMergedStore{newSS(), &sync.Mutex{}, map[string]map[string]json.RawMessage{}} }),
		g("latest-pointer-race", "save moves a latest pointer with check-then-act, so racing saves can leave a lower snapshot latest", "snapshotstore/concurrent-saves", []string{"I-STORE-15", "I-STORE-14"},
			func() S { return latestPointerRace{newSS(), &sync.Mutex{}, map[string]spi.Snapshot{}} }),
		g("save-skips-float-equal", "a save whose state equals the stored one through float64 is skipped as unchanged", "snapshotstore/save-replaces-whole", []string{"I-STORE-15", "I-STORE-29"},
			func() S { return saveSkipsFloatEqual{newSS(), &sync.Mutex{}, map[string]json.RawMessage{}} }),
		g("delimited-prefix-scan", "snapshots are keyed <id>/<sequence> and loadLatest scans the key prefix <id>/, so x loads the latest snapshot of x/q", "snapshotstore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() S { return prefixScanSnapshots{newSS(), "/", &sync.Mutex{}, map[string]bool{}} }),
		g("save-delete-then-insert", "a save at a taken sequence deletes the old snapshot, then inserts the new one; readers see an older latest", "snapshotstore/readers-whole-save", []string{"I-STORE-15", "I-STORE-31"},
			func() S { return saveDeleteThenInsert{newWatchedSS()} }),
	}
}

func gapArchiveStores() []gap[spi.ArchiveStore] {
	type A = spi.ArchiveStore
	return []gap[A]{
		g("archive-delete-folds-case", "deleteExecution matches ids case-insensitively", "archivestore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() A { return archiveDeleteFoldsCase{newAS(), &sync.Mutex{}, map[string]bool{}} }),
		g("archive-delimited-prefix-scan", "archived envelopes are keyed <id>|<sequence> and read scans the key prefix <id>|, so x reads the archive of x|q", "archivestore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() A { return prefixScanArchive{newAS(), "|", &sync.Mutex{}, map[string]bool{}} }),
		g("archive-bytes-compare", "re-archived envelopes are compared byte for byte, so a respelled retry is a conflict", "archivestore/reappend-respelled", []string{"I-STORE-18", "I-STORE-29"},
			func() A { return archiveBytesCompare{newAS()} }),
		g("archive-float-compare", "re-archived envelopes are compared through float64 (and absent metadata matches any), so a different value is taken for a retry", "archivestore/reappend-respelled", []string{"I-STORE-18", "I-STORE-29"},
			func() A { return archiveFloatCompare{newAS()} }),
		g("archive-partial-before-conflict", "an archive call is written envelope by envelope and stops at the first conflict, keeping the new ones before it", "archivestore/conflict-after-valid", []string{"I-STORE-18", "I-STORE-30"},
			func() A { return archivePartialBeforeConflict{newAS()} }),
		g("archive-append-visible-midway", "an archive call is checked whole, then inserted one envelope per statement; readers see part of it", "archivestore/readers-whole-append", []string{"I-STORE-18", "I-STORE-31"},
			func() A { return archiveAppendVisibleMidway{newWatchedAS(), &sync.Mutex{}} }),
		g("replace-visible-midway", "replaceSegments deletes the range, then inserts the new envelopes, without a transaction", "archivestore/readers-whole-replace", []string{"I-STORE-19", "I-STORE-31"},
			func() A { return replaceVisibleMidway{newWatchedAS()} }),
		g("replace-validates-lazily", "replaceSegments drops the range and inserts envelope by envelope, refusing an out-of-range one only when it comes to it", "archivestore/replace-invalid-after-valid", []string{"I-STORE-19", "I-STORE-30"},
			func() A { return replaceValidatesLazily{newAS()} }),
		g("replace-keeps-metadata", "replaceSegments keeps the old metadata when the new envelope has none", "archivestore/replace-whole-envelopes", []string{"I-STORE-19", "I-STORE-32"},
			func() A { return replaceKeepsMetadata{newAS()} }),
	}
}

func gapBranchRegistries() []gap[spi.BranchRegistry] {
	type B = spi.BranchRegistry
	return []gap[B]{
		g("branches-fold-case", "branches are keyed by the lower-cased id", "branchregistry/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() B { return branchesFoldCase{newBR()} }),
		g("children-collated", "listChildren orders children case-insensitively (a before B)", "branchregistry/list-children-byte-order", []string{"I-STORE-20", "I-STORE-28"},
			func() B { return childrenCollated{newBR(), collate} }),
		g("children-by-path", "branches are kept as paths, so listChildren(p) also lists the children of p.q", "branchregistry/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27", "I-STORE-20"},
			func() B { return newChildrenByPath(".") }),
		g("children-utf16-order", "listChildren orders children by UTF-16 code units: characters beyond U+FFFF before U+E000–U+FFFF", "branchregistry/list-children-byte-order", []string{"I-STORE-20", "I-STORE-28"},
			func() B { return childrenCollated{newBR(), utf16Less} }),
		g("branch-bytes-compare", "re-registration compares metadata bytes, so a respelled retry is already-exists", "branchregistry/register-respelled", []string{"I-STORE-20", "I-STORE-29"},
			func() B { return branchBytesCompare{newBR()} }),
		g("branch-float-compare", "re-registration compares metadata through float64, so a different value is taken for a retry", "branchregistry/register-respelled", []string{"I-STORE-20", "I-STORE-29"},
			func() B { return branchFloatCompare{newBR()} }),
	}
}

func stores[T any](gs []gap[T]) []Store[T] {
	out := make([]Store[T], len(gs))
	for i, x := range gs {
		out[i] = x.Store
	}
	return out
}

// GapEventStores are the broken EventStores of the cross-seam rule classes.
func GapEventStores() []Store[spi.EventStore] { return stores(gapEventStores()) }

// GapSnapshotStores are the broken SnapshotStores of the cross-seam rule classes.
func GapSnapshotStores() []Store[spi.SnapshotStore] { return stores(gapSnapshotStores()) }

// GapArchiveStores are the broken ArchiveStores of the cross-seam rule classes.
func GapArchiveStores() []Store[spi.ArchiveStore] { return stores(gapArchiveStores()) }

// GapBranchRegistries are the broken BranchRegistries of the cross-seam rule classes.
func GapBranchRegistries() []Store[spi.BranchRegistry] { return stores(gapBranchRegistries()) }

func gapMutants[T any](seam, where string, gs []gap[T]) []spec.Mutant {
	out := make([]spec.Mutant, len(gs))
	for i, x := range gs {
		out[i] = spec.Mutant{ID: MutantID(seam, x.Name), Kind: "store", Defect: x.Defect,
			Clauses: append([]string(nil), x.Clauses...), CaughtBy: []string{x.Catch}, Where: where}
	}
	return out
}

// GapMutants registers the broken stores of the cross-seam rule classes as mutants; each is
// proven rejected by TestGap<Seam>Rejected.
func GapMutants() []spec.Mutant {
	var out []spec.Mutant
	out = append(out, gapMutants("eventstore", "kits/broken:TestGapEventStoresRejected", gapEventStores())...)
	out = append(out, gapMutants("snapshotstore", "kits/broken:TestGapSnapshotStoresRejected", gapSnapshotStores())...)
	out = append(out, gapMutants("archivestore", "kits/broken:TestGapArchiveStoresRejected", gapArchiveStores())...)
	out = append(out, gapMutants("branchregistry", "kits/broken:TestGapBranchRegistriesRejected", gapBranchRegistries())...)
	out = append(out, gapMutants("contentstore", "kits/broken:TestGapContentStoresRejected", gapContentStores())...)
	out = append(out, gapMutants("durablestatestore", "kits/broken:TestGapDurableStateStoresRejected", gapDurableStateStores())...)
	out = append(out, gapMutants("readmodelstore", "kits/broken:TestGapReadModelStoresRejected", gapReadModelStores())...)
	return out
}

// gapChecks are the tests that prove the kits with the gap stores.
func gapChecks() []spec.Check {
	return []spec.Check{
		{ID: "kits/broken/gap-eventstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-26", "I-STORE-27", "I-STORE-28", "I-STORE-29", "I-STORE-30", "I-STORE-31"},
			Where: "kits/broken:TestGapEventStoresRejected"},
		{ID: "kits/broken/gap-snapshotstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-31", "I-STORE-32"},
			Where: "kits/broken:TestGapSnapshotStoresRejected"},
		{ID: "kits/broken/gap-archivestores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-29", "I-STORE-30", "I-STORE-31", "I-STORE-32"},
			Where: "kits/broken:TestGapArchiveStoresRejected"},
		{ID: "kits/broken/gap-branchregistries-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-28", "I-STORE-29"},
			Where: "kits/broken:TestGapBranchRegistriesRejected"},
		{ID: "kits/broken/gap-contentstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-12", "I-PLUGIN-13", "I-PLUGIN-14"},
			Where: "kits/broken:TestGapContentStoresRejected"},
		{ID: "kits/broken/gap-durablestatestores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-14", "I-PLUGIN-15"},
			Where: "kits/broken:TestGapDurableStateStoresRejected"},
		{ID: "kits/broken/gap-readmodelstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-14", "I-PLUGIN-15"},
			Where: "kits/broken:TestGapReadModelStoresRejected"},
	}
}
