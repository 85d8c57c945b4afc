package broken

import (
	"encoding/json"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func classSnapshotStores() []classStore[spi.SnapshotStore] {
	type S = spi.SnapshotStore
	return []classStore[S]{
		class("snapshots-fold-case", "snapshots are keyed by the lower-cased execution id", "snapshotstore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() S { return snapshotsFoldCase{newSS()} }),
		class("sealed-sticky", "an unsealed save at a sequence saved sealed keeps the sealed flag", "snapshotstore/save-replaces-whole", []string{"I-STORE-15", "I-STORE-16", "I-STORE-32"},
			func() S { return sealedSticky{newSS(), &sync.Mutex{}, map[string]bool{}} }),
		class("state-merged", "a second save merges the new state's keys into the old state", "snapshotstore/save-replaces-whole", []string{"I-STORE-15", "I-STORE-32"},
			func() S { return stateMergedStore{newSS(), &sync.Mutex{}, map[string]map[string]json.RawMessage{}} }),
		class("latest-pointer-race", "save moves a latest pointer with check-then-act, so racing saves can leave a lower snapshot latest", "snapshotstore/concurrent-saves", []string{"I-STORE-15", "I-STORE-14"},
			func() S { return latestPointerRace{newSS(), &sync.Mutex{}, map[string]spi.Snapshot{}, paceHeld} }),
		class("save-skips-float-equal", "a save whose state equals the stored one through float64 is skipped as unchanged, so a state differing only in a number a double cannot hold is lost", "snapshotstore/roundtrip-precision", []string{"I-STORE-29", "I-STORE-25"},
			func() S { return saveSkipsFloatEqual{newSS(), &sync.Mutex{}, map[string]json.RawMessage{}} }),
		class("delimited-prefix-scan", "snapshots are keyed <id>/<sequence> and loadLatest scans the key prefix <id>/, so x loads the latest snapshot of x/q", "snapshotstore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() S { return prefixScanSnapshots{newIndexedSS(), "/"} }),
		class("delete-takes-dashed", "deleteExecution(x) also deletes the snapshots of every id that extends x after a dash (x-2)", "snapshotstore/ids-apart-every-method", []string{"I-STORE-4", "I-STORE-27"},
			func() S { return deleteTakesDashed{newIndexedSS()} }),
		class("state-reencoded", "the state is re-encoded through another JSON library on save: empty arrays become objects, numbers are printed with 14 digits", "snapshotstore/roundtrip-state", []string{"I-STORE-15"},
			func() S { return stateReencoded{newSS()} }),
		class("save-delete-then-insert", "a save at a taken sequence deletes the old snapshot, then inserts the new one; readers see an older latest", "snapshotstore/readers-whole-save", []string{"I-STORE-15", "I-STORE-31"},
			func() S { return saveDeleteThenInsert{newWatchedSS()} }),
	}
}

// ClassSnapshotStores are the broken SnapshotStores of the rule classes that apply across seams and methods.
func ClassSnapshotStores() []Store[spi.SnapshotStore] { return stores(classSnapshotStores()) }

type ss struct{ *memory.SnapshotStore }

func newSS() ss { return ss{memory.NewSnapshotStore()} }

// SnapshotStores lists the broken SnapshotStores.
func SnapshotStores() []Store[spi.SnapshotStore] {
	return []Store[spi.SnapshotStore]{
		{"latest-off-by-one", "loadLatest answers the second-highest sequence", "snapshotstore/load-latest", newLatestOffByOne},
		{"latest-off-by-one-fold", "loadLatest answers the second-highest sequence (seen by the fold)", "snapshotstore/equivalence", newLatestOffByOne},
		{"first-write-wins", "a second save at a sequence is ignored", "snapshotstore/save-replaces", func() spi.SnapshotStore { return firstWriteWins{newSS()} }},
		{"lossy-state", "state numbers pass through float64", "snapshotstore/roundtrip-precision", func() spi.SnapshotStore { return lossyState{newSS()} }},
		{"sealed-ignored", "loadLatestSealed returns unsealed snapshots", "snapshotstore/load-latest-sealed", func() spi.SnapshotStore { return sealedIgnored{newSS()} }},
		{"prune-wrong-range", "pruneSnapshots keeps the snapshot at through", "snapshotstore/prune-range", func() spi.SnapshotStore { return pruneHalfOpen{newSS()} }},
		{"sequences-descending", "listSequences is descending", "snapshotstore/list-sequences", func() spi.SnapshotStore { return sequencesDescending{newSS()} }},
		{"prune-counts-saves", "pruneSnapshots reports a sequence once per save while listSequences lists it once, so its dry run under-reports", "snapshotstore/prune-dry-run", func() spi.SnapshotStore {
			return pruneCountsSaves{newSS(), &sync.Mutex{}, map[string]map[int64]int{}}
		}},
		{"delete-all-snapshots", "deleteExecution removes every execution's snapshots", "snapshotstore/delete-execution", func() spi.SnapshotStore {
			return deleteAllSnapshots{newIndexedSS()}
		}},
		{"prefix-scan-snapshots", "loadLatest scans the bare id as a key prefix, so ids extending it leak in", "snapshotstore/isolation", func() spi.SnapshotStore {
			return prefixScanSnapshots{newIndexedSS(), ""}
		}},
		{"prune-inverted-noop", "pruneSnapshots of an inverted range deletes nothing and succeeds (breaks only a recommendation)", "snapshotstore/prune-range-inverted", func() spi.SnapshotStore { return pruneInvertedNoop{newSS()} }},
	}
}

// KeyReorderingSnapshotStore is a CORRECT store that rewrites every saved state with object keys
// in reverse order, as a normalising store (PostgreSQL jsonb) may: the kit must pass it.
func KeyReorderingSnapshotStore() spi.SnapshotStore { return reorder{newSS()} }

// JsonbLikeSnapshotStore is a CORRECT store that behaves like a PostgreSQL jsonb column: it
// reorders keys and refuses U+0000 in strings. It must pass every MUST check (only the SHOULD
// snapshotstore/roundtrip-nul fails, I-STORE-25).
func JsonbLikeSnapshotStore() spi.SnapshotStore { return jsonbLike{reorder{newSS()}} }
