package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// SnapshotStoreCase is what a SnapshotStore check runs against.
type SnapshotStoreCase = Case[spi.SnapshotStore]

// SnapshotStoreKit is the SnapshotStore conformance kit (spec §3, §7).
func SnapshotStoreKit() Kit[spi.SnapshotStore] {
	type C = Check[spi.SnapshotStore]
	return Kit[spi.SnapshotStore]{Name: "snapshotstore", Seam: manifest.SeamSnapshotStore, Checks: append([]C{
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
		{ID: "snapshotstore/roundtrip-precision", Clauses: []string{"I-STORE-15", "I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold round-trip exactly in the state", Run: ssRoundtripPrecision},
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
		{ID: "snapshotstore/list-sequences", Clauses: []string{"S7.ss.list-sequences"}, Level: spec.Must,
			Requires: []string{spi.MethodListSequences}, Doc: "listSequences is ascending, one per snapshot", Run: ssListSequences},
		{ID: "snapshotstore/prune-dry-run", Clauses: []string{"S7.ss.list-sequences", "S7.ss.prune-range", "I-STORE-65"}, Level: spec.Must,
			Requires: []string{spi.MethodListSequences, spi.MethodPruneSnapshots}, Doc: "the dry run from listSequences predicts exactly what pruneSnapshots deletes, also after sequences were saved again", Run: ssPruneDryRun},
	}, ssGapChecks()...)}
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

func ssLoadLatest(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("latest")
	_, err := c.Store.LoadLatest(ctx, x)
	if e := expectErr(c, "LoadLatest", fmt.Sprintf("%q) before any save (", x), err, spi.ErrNotFound); e != nil {
		return e
	}
	var last spi.Snapshot
	for _, seq := range []int64{3, 7, 5, 0, 6} {
		s := snap(x, seq, stateAt(seq, "l"))
		if err := save(ctx, c, s); err != nil {
			return err
		}
		if seq == 7 {
			last = s
		}
	}
	return expectLatest(ctx, c, x, last, "saves at 3, 7, 5, 0, 6")
}

func ssSaveReplaces(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("replace")
	if err := save(ctx, c, snap(x, 4, stateAt(4, "first"))); err != nil {
		return err
	}
	second := snap(x, 4, stateAt(4, "second"))
	if err := save(ctx, c, second); err != nil {
		return err
	}
	return expectLatest(ctx, c, x, second, "two saves at 4")
}

func ssRoundtrip(ctx context.Context, c *SnapshotStoreCase) error {
	// U+0000 is left out: spec §4 names PostgreSQL jsonb as a snapshot store and jsonb refuses it
	// (I-STORE-25); snapshotstore/roundtrip-nul asks for it at SHOULD level.
	var values []struct{ name, payload, metadata string }
	for _, hv := range hardValues() {
		hv.payload = strings.ReplaceAll(hv.payload, `\u0000`, `\u0001`)
		values = append(values, hv)
	}
	return roundtripState(ctx, c, "state-values", values)
}

func ssRoundtripPrecision(ctx context.Context, c *SnapshotStoreCase) error {
	return roundtripState(ctx, c, "state-precision", precisionValues())
}

func ssRoundtripNul(ctx context.Context, c *SnapshotStoreCase) error {
	return roundtripState(ctx, c, "state-nul", []struct{ name, payload, metadata string }{
		{"nul", `{"s":"before \u0000 after","\u0000key":"v"}`, ``},
	})
}

// roundtripState saves a state whose variables hold values and loads it back value-exact.
func roundtripState(ctx context.Context, c *SnapshotStoreCase, name string, values []struct{ name, payload, metadata string }) error {
	x := c.ExecID(name)
	var vars []string
	for _, hv := range values {
		vars = append(vars, fmt.Sprintf("%q:%s", hv.name, hv.payload))
	}
	state := fmt.Sprintf(`{"variables":{%s,"_decisions":{"10":{"seq":3},"2":{"seq":1},"b":{"seq":2},"a":{"seq":0}}},"status":"running","frames":{"z":{"stepId":"z","status":"completed","attempt":1},"a":{"stepId":"a","status":"running","attempt":2}},"sequence":9,"startedAt":1767225600000,"updatedAt":1767225600999}`,
		joinComma(vars))
	s := snap(x, 9, state)
	if err := save(ctx, c, s); err != nil {
		return err
	}
	return expectLatest(ctx, c, x, s, "a save of hard values")
}

func joinComma(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func ssIsolation(ctx context.Context, c *SnapshotStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	sa, sb := snap(a, 2, stateAt(2, "a")), snap(b, 9, stateAt(9, "b"))
	if err := save(ctx, c, sa); err != nil {
		return err
	}
	if err := save(ctx, c, sb); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, a, sa, "saves to two executions"); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, b, sb, "saves to two executions"); err != nil {
		return err
	}
	// Ids that extend a's id (a store keyed <id><seq> or scanning a key prefix without a
	// separator mixes them) hold higher sequences; a's latest stays a's own (I-STORE-4).
	for i, ext := range []string{a + "0", a + "/", a + "-1"} {
		if err := save(ctx, c, snap(ext, int64(90+i), stateAt(int64(90+i), "extends"))); err != nil {
			return err
		}
	}
	if err := expectLatest(ctx, c, a, sa, "saves at 90..92 to ids that extend it"); err != nil {
		return err
	}
	if sl, ok := c.Store.(spi.SequenceLister); ok && spi.Has(manifest.SeamSnapshotStore, c.Store, spi.MethodListSequences) {
		got, err := sl.ListSequences(ctx, a)
		if err != nil {
			return c.Failf("ListSequences", fmt.Sprintf("%q", a), err, "nil")
		}
		if d := c.Diff("ListSequences", fmt.Sprintf("%q) after saves to ids that extend it (", a), []int64{2}, got); d != nil {
			return d
		}
	}
	return nil
}

// ssConcurrent races saves at different sequences, released together by a gate, in a seeded
// order (so the highest sequence is not always the last to start), over several rounds: a store
// whose latest is decided by the last writer rather than the highest sequence shows on almost
// every seed (measured by TestSeedDependence in kits/broken).
func ssConcurrent(ctx context.Context, c *SnapshotStoreCase) error {
	const n, rounds = 12, 6
	for round := 0; round < rounds; round++ {
		c.Progress(round, rounds)
		x := c.ExecID("concurrent")
		order := c.Rand.Perm(n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for w, i := range order {
			wg.Add(1)
			go func(w, i int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				errs[w] = c.Store.Save(ctx, snap(x, int64(i*3), stateAt(int64(i*3), "c")))
			}(w, i)
		}
		close(gate)
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return c.Failf("Save", fmt.Sprintf("%q ×%d concurrently", x, n), err, "nil")
		}
		if err := expectLatest(ctx, c, x, snap(x, (n-1)*3, stateAt((n-1)*3, "c")), fmt.Sprintf("racing saves, round %d", round)); err != nil {
			return err
		}
	}
	return nil
}

func ssDelete(ctx context.Context, c *SnapshotStoreCase) error {
	d := c.Store.(spi.SnapshotDeleter)
	x, y := c.ExecID("del"), c.ExecID("del-keep")
	if err := save(ctx, c, snap(x, 1, stateAt(1, "x"))); err != nil {
		return err
	}
	ky := snap(y, 1, stateAt(1, "y"))
	if err := save(ctx, c, ky); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	_, err := c.Store.LoadLatest(ctx, x)
	if e := expectErr(c, "LoadLatest", fmt.Sprintf("%q) after DeleteExecution (", x), err, spi.ErrNotFound); e != nil {
		return e
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q) again (", x), err, "nil")
	}
	return expectLatest(ctx, c, y, ky, "DeleteExecution of another id")
}

func ssSealed(ctx context.Context, c *SnapshotStoreCase) error {
	sl := c.Store.(spi.SealedLoader)
	x := c.ExecID("sealed")
	_, err := sl.LoadLatestSealed(ctx, x)
	if e := expectErr(c, "LoadLatestSealed", fmt.Sprintf("%q) before any save (", x), err, spi.ErrNotFound); e != nil {
		return e
	}
	s2 := snap(x, 2, stateAt(2, "s2"))
	s2.Sealed = true
	s4 := snap(x, 4, stateAt(4, "s4"))
	s4.Sealed = true
	u6 := snap(x, 6, stateAt(6, "u6"))
	for _, s := range []spi.Snapshot{s4, u6, s2} {
		if err := save(ctx, c, s); err != nil {
			return err
		}
	}
	got, err := sl.LoadLatestSealed(ctx, x)
	if err != nil {
		return c.Failf("LoadLatestSealed", fmt.Sprintf("%q", x), err, "the sealed snapshot at 4")
	}
	if d := c.Diff("LoadLatestSealed", fmt.Sprintf("%q) after sealed 2, 4 and unsealed 6 (", x), s4, got, snapCmp); d != nil {
		return d
	}
	return expectLatest(ctx, c, x, u6, "sealed 2, 4 and unsealed 6")
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

func ssPrune(ctx context.Context, c *SnapshotStoreCase) error {
	p := c.Store.(spi.SnapshotPruner)
	x, y := c.ExecID("prune"), c.ExecID("prune-other")
	for s := int64(1); s <= 10; s++ {
		if err := save(ctx, c, snap(x, s, stateAt(s, "p"))); err != nil {
			return err
		}
	}
	ys := snap(y, 5, stateAt(5, "y"))
	if err := save(ctx, c, ys); err != nil {
		return err
	}
	got, err := p.PruneSnapshots(ctx, x, spi.SeqRange{From: 3, Through: 6})
	if err != nil {
		return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [3, 6]", x), err, "nil")
	}
	if got == nil {
		got = []int64{}
	}
	if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [3, 6]", x), []int64{3, 4, 5, 6}, got); d != nil {
		return d
	}
	for _, probe := range []struct {
		r    spi.SeqRange
		want []int64
	}{{spi.SeqRange{From: 0, Through: 1}, []int64{1}}, {spi.SeqRange{From: 10, Through: 20}, []int64{10}}, {spi.SeqRange{From: 3, Through: 6}, []int64{}}} {
		got, err := p.PruneSnapshots(ctx, x, probe.r)
		if err != nil {
			return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [%d, %d]", x, probe.r.From, probe.r.Through), err, "nil")
		}
		if got == nil {
			got = []int64{}
		}
		if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [%d, %d]", x, probe.r.From, probe.r.Through), probe.want, got); d != nil {
			return d
		}
	}
	if err := expectLatest(ctx, c, x, snap(x, 9, stateAt(9, "p")), "prunes of [3,6], [0,1], [10,20]"); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, y, ys, "prunes of another execution"); err != nil {
		return err
	}
	if sl, ok := c.Store.(spi.SequenceLister); ok && spi.Has(manifest.SeamSnapshotStore, c.Store, spi.MethodListSequences) {
		left, err := sl.ListSequences(ctx, x)
		if err != nil {
			return c.Failf("ListSequences", fmt.Sprintf("%q", x), err, "nil")
		}
		if d := c.Diff("ListSequences", fmt.Sprintf("%q) after prunes (", x), []int64{2, 7, 8, 9}, left); d != nil {
			return d
		}
	}
	_, err = p.PruneSnapshots(ctx, x, spi.SeqRange{From: 5, Through: 2})
	return expectErr(c, "PruneSnapshots", fmt.Sprintf("%q, [5, 2]", x), err, spi.ErrInvalidArgument)
}

func ssListSequences(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("seqs")
	got, err := listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	if d := c.Diff("ListSequences", fmt.Sprintf("%q) before any save (", x), []int64{}, got); d != nil {
		return d
	}
	for _, s := range []int64{40, 2, 17, 2, 0, 99, 17} {
		if err := save(ctx, c, snap(x, s, stateAt(s, "q"))); err != nil {
			return err
		}
	}
	if err := save(ctx, c, snap(c.ExecID("seqs-other"), 50, stateAt(50, "o"))); err != nil {
		return err
	}
	got, err = listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	return c.Diff("ListSequences", fmt.Sprintf("%q) after saves at 40, 2, 17, 2, 0, 99, 17 (", x), []int64{0, 2, 17, 40, 99}, got)
}

func ssPruneDryRun(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("dry-run")
	for s := int64(0); s < 20; s += 3 {
		if err := save(ctx, c, snap(x, s, stateAt(s, "d"))); err != nil {
			return err
		}
	}
	for _, s := range []int64{6, 9, 18} { // saved again: still one snapshot each (I-STORE-65)
		if err := save(ctx, c, snap(x, s, stateAt(s, "e"))); err != nil {
			return err
		}
	}
	r := spi.SeqRange{From: 4, Through: 13}
	all, err := listSeqs(ctx, c, x)
	if err != nil {
		return err
	}
	predicted := []int64{}
	for _, s := range all {
		if r.Contains(s) {
			predicted = append(predicted, s)
		}
	}
	got, err := c.Store.(spi.SnapshotPruner).PruneSnapshots(ctx, x, r)
	if err != nil {
		return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [4, 13]", x), err, "nil")
	}
	if got == nil {
		got = []int64{}
	}
	return c.Diff("PruneSnapshots", fmt.Sprintf("%q, [4, 13]) after saves at 0, 3, .., 18 and again at 6, 9, 18, vs the dry run from ListSequences (", x), predicted, got)
}
