package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// SnapshotStoreCase is what a SnapshotStore check runs against.
type SnapshotStoreCase = Case[spi.SnapshotStore]

// SnapshotStoreKit is the SnapshotStore conformance kit (spec §3, §7).
func SnapshotStoreKit() Kit[spi.SnapshotStore] {
	type C = Check[spi.SnapshotStore]
	return Kit[spi.SnapshotStore]{Name: "snapshotstore", Seam: manifest.SeamSnapshotStore, Checks: []C{
		{ID: "snapshotstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *SnapshotStoreCase) error {
				return versionClaim(c, manifest.SeamSnapshotStore)
			}},
		{ID: "snapshotstore/load-latest", Clauses: []string{"I-STORE-15"}, Level: spec.Must,
			Doc: "loadLatest is not-found before any save and the highest sequence after saves in any order", Run: ssLoadLatest},
		{ID: "snapshotstore/save-replaces", Clauses: []string{"I-STORE-15"}, Level: spec.Must,
			Doc: "a second save at the same sequence replaces the first", Run: ssSaveReplaces},
		{ID: "snapshotstore/roundtrip-state", Clauses: []string{"I-STORE-15"}, Level: spec.Must,
			Doc: "the state round-trips as the same JSON value (key order may change)", Run: ssRoundtrip},
		{ID: "snapshotstore/roundtrip-precision", Clauses: []string{"I-STORE-25", "I-STORE-29"}, Level: spec.Must,
			Doc: "numbers a double cannot hold round-trip exactly in the state, also when a save replaces a state that differs only in one of them", Run: ssRoundtripPrecision},
		{ID: "snapshotstore/roundtrip-nul", Clauses: []string{"I-STORE-25"}, Level: spec.Should,
			Doc: "a state string holding U+0000 round-trips (jsonb refuses it, so SHOULD)", Run: ssRoundtripNul},
		{ID: "snapshotstore/isolation", Clauses: []string{"I-STORE-4"}, Level: spec.Must,
			Doc: "snapshots of two executions never mix, also when one id extends the other", Run: ssIsolation},
		{ID: "snapshotstore/concurrent-saves", Clauses: []string{"I-STORE-15", "I-STORE-14"}, Level: spec.Must,
			Doc: "racing saves at different sequences leave the highest one latest", Run: ssConcurrent},
		{ID: "snapshotstore/equivalence", Clauses: []string{"S3.snapshot.equivalence", "S4.snapshot.every-k"}, Level: spec.Must,
			Doc: "for every k, fold(loaded snapshot at k, tail) equals fold(whole log), also when the store reorders keys", Run: ssEquivalence},
		{ID: "snapshotstore/delete-execution", Clauses: []string{"S7.ss.delete-execution", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution}, Doc: "deleteExecution removes one execution's snapshots only", Run: ssDelete},
		{ID: "snapshotstore/load-latest-sealed", Clauses: []string{"S7.ss.load-latest-sealed", "I-STORE-16"}, Level: spec.Must,
			Requires: []string{spi.MethodLoadLatestSealed}, Doc: "loadLatestSealed ignores later unsealed snapshots", Run: ssSealed},
		{ID: "snapshotstore/prune-range", Clauses: []string{"S7.ss.prune-range", "I-STORE-17"}, Level: spec.Must,
			Requires: []string{spi.MethodPruneSnapshots}, Doc: "pruneSnapshots deletes exactly the inclusive range and says which", Run: ssPrune},
		{ID: "snapshotstore/prune-range-inverted", Clauses: []string{"I-STORE-66"}, Level: spec.Must,
			Requires: []string{spi.MethodPruneSnapshots}, Doc: "pruneSnapshots of an inverted range is an invalid argument and deletes nothing; our choice, so recommended", Run: ssPruneInverted},
		{ID: "snapshotstore/list-sequences", Clauses: []string{"S7.ss.list-sequences"}, Level: spec.Must,
			Requires: []string{spi.MethodListSequences}, Doc: "listSequences is ascending, one per snapshot", Run: ssListSequences},
		{ID: "snapshotstore/prune-dry-run", Clauses: []string{"S7.ss.list-sequences", "S7.ss.prune-range", "I-STORE-65"}, Level: spec.Must,
			Requires: []string{spi.MethodListSequences, spi.MethodPruneSnapshots}, Doc: "the dry run from listSequences predicts exactly what pruneSnapshots deletes, also after sequences were saved again", Run: ssPruneDryRun},
		{ID: "snapshotstore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}, Level: spec.Must,
			Doc: "save, loadLatest and every declared optional method (loadLatestSealed, listSequences, pruneSnapshots, deleteExecution, each id of a pair deleted with the other holding snapshots) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . | _ - blank %; that differ by one of those delimiters swapped for another or for its escape (a:b, a_b, a%3Ab); or that are 1 024 bytes long and differ only in their last byte", Run: ssIDsEveryMethod},
		{ID: "snapshotstore/save-replaces-whole", Clauses: []string{"I-STORE-15", "I-STORE-16", "I-STORE-32"}, Level: spec.Must,
			Doc: "a second save at a sequence replaces the whole record: the state is not merged with the old one and the sealed flag follows the last save both ways", Run: ssSaveReplacesWhole},
		{ID: "snapshotstore/explore", Clauses: ssExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of saves, re-saves, prunes and deletes and every declared read over ids that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with states from the round-trip corpus (U+0000 aside: snapshotstore/roundtrip-nul), answer as the in-memory reference does; about one step in five is two made at once on one id, each by its own client, answered as the reference answers them in one order or the other (the first difference is shrunk to a minimal script)", Run: ssExplore().run},
		{ID: "snapshotstore/readers-whole-save", Clauses: []string{"I-STORE-15", "I-STORE-31"}, Level: spec.Must,
			Doc: "readers racing saves and re-saves never see loadLatest go below a save that had returned, nor not-found (sees a half-done replace visible for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: ssReadersWholeSave},
	}}
}

// CheckSnapshotStore runs the SnapshotStore kit and returns errors.Join of every failure and unknown.
func CheckSnapshotStore(ctx context.Context, factory Factory[spi.SnapshotStore], opts Options) error {
	results, err := Run(ctx, SnapshotStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func snap(x string, seq int64, state string) spi.Snapshot {
	return spi.Snapshot{ExecutionID: x, Sequence: seq, State: json.RawMessage(state)}
}

func stateAt(seq int64, tag string) string {
	return fmt.Sprintf(`{"status":"running","frames":{},"variables":{"tag":%q},"sequence":%d,"startedAt":1,"updatedAt":%d}`, tag, seq, seq+1)
}

func save(ctx context.Context, c *SnapshotStoreCase, s spi.Snapshot) error {
	if err := c.Store.Save(ctx, s); err != nil {
		return c.Failf("Save", fmt.Sprintf("%q, seq %d", s.ExecutionID, s.Sequence), err, "nil")
	}
	return nil
}

var snapCmp = envCmp

func expectLatest(ctx context.Context, c *SnapshotStoreCase, x string, want spi.Snapshot, after string) error {
	got, err := c.Store.LoadLatest(ctx, x)
	if err != nil {
		return c.Failf("LoadLatest", fmt.Sprintf("%q) after (%s", x, after), err, fmt.Sprintf("the snapshot at %d", want.Sequence))
	}
	return c.Diff("LoadLatest", fmt.Sprintf("%q) after (%s", x, after), want, got, snapCmp)
}

func listSeqs(ctx context.Context, c *SnapshotStoreCase, x string) ([]int64, error) {
	got, err := c.Store.(spi.SequenceLister).ListSequences(ctx, x)
	if err != nil {
		return nil, c.Failf("ListSequences", fmt.Sprintf("%q", x), err, "nil")
	}
	if got == nil {
		got = []int64{}
	}
	return got, nil
}

func ssHas(c *SnapshotStoreCase, method string) bool {
	return spi.Has(manifest.SeamSnapshotStore, c.Store, method)
}

func nonNilSeqs(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}
