package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ssGapChecks apply the cross-seam rules to the SnapshotStore: ids on every method, saves that
// replace the whole record, and saves seen whole by concurrent readers.
func ssGapChecks() []Check[spi.SnapshotStore] {
	type C = Check[spi.SnapshotStore]
	return []C{
		{ID: "snapshotstore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27"}, Level: spec.Must,
			Doc: "save, loadLatest and every declared optional method (loadLatestSealed, listSequences, pruneSnapshots, deleteExecution) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . |", Run: ssIDsEveryMethod},
		{ID: "snapshotstore/save-replaces-whole", Clauses: []string{"I-STORE-15", "I-STORE-16", "I-STORE-32", "I-STORE-29"}, Level: spec.Must,
			Doc: "a second save at a sequence replaces the whole record: the state is not merged with the old one, the sealed flag follows the last save both ways, and a state differing only where a double cannot tell is still replaced", Run: ssSaveReplacesWhole},
		{ID: "snapshotstore/readers-whole-save", Clauses: []string{"I-STORE-15", "I-STORE-31"}, Level: spec.Must,
			Doc: "readers racing saves and re-saves never see loadLatest go below a save that had returned, nor not-found (sees a half-done replace visible for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: ssReadersWholeSave},
	}
}

func ssHas(c *SnapshotStoreCase, method string) bool {
	return spi.Has(manifest.SeamSnapshotStore, c.Store, method)
}

func ssIDsEveryMethod(ctx context.Context, c *SnapshotStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		if err := ssIDPair(ctx, c, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

func ssIDPair(ctx context.Context, c *SnapshotStoreCase, a, b string) error {
	a1, a3 := snap(a, 1, stateAt(1, "a")), snap(a, 3, stateAt(3, "a"))
	b2, b5 := snap(b, 2, stateAt(2, "b")), snap(b, 5, stateAt(5, "b"))
	b2.Sealed = true
	for _, s := range []spi.Snapshot{b2, b5, a1, a3} {
		if err := save(ctx, c, s); err != nil {
			return err
		}
	}
	next := fmt.Sprintf("saves to %q and %q", a, b)
	if err := expectLatest(ctx, c, a, a3, next); err != nil {
		return err
	}
	if err := expectLatest(ctx, c, b, b5, next); err != nil {
		return err
	}
	if ssHas(c, spi.MethodLoadLatestSealed) {
		sl := c.Store.(spi.SealedLoader)
		_, err := sl.LoadLatestSealed(ctx, a)
		if e := expectErr(c, "LoadLatestSealed", fmt.Sprintf("%q) next to (%q with a sealed snapshot", a, b), err, spi.ErrNotFound); e != nil {
			return e
		}
		got, err := sl.LoadLatestSealed(ctx, b)
		if err != nil {
			return c.Failf("LoadLatestSealed", fmt.Sprintf("%q", b), err, "the sealed snapshot at 2")
		}
		if d := c.Diff("LoadLatestSealed", fmt.Sprintf("%q) after (%s", b, next), b2, got, snapCmp); d != nil {
			return d
		}
	}
	if ssHas(c, spi.MethodListSequences) {
		for _, x := range []struct {
			id   string
			want []int64
		}{{a, []int64{1, 3}}, {b, []int64{2, 5}}} {
			got, err := listSeqs(ctx, c, x.id)
			if err != nil {
				return err
			}
			if d := c.Diff("ListSequences", fmt.Sprintf("%q) after (%s", x.id, next), x.want, got); d != nil {
				return d
			}
		}
	}
	if ssHas(c, spi.MethodPruneSnapshots) {
		got, err := c.Store.(spi.SnapshotPruner).PruneSnapshots(ctx, a, spi.SeqRange{From: 0, Through: 4})
		if err != nil {
			return c.Failf("PruneSnapshots", fmt.Sprintf("%q, [0, 4]", a), err, "nil")
		}
		if d := c.Diff("PruneSnapshots", fmt.Sprintf("%q, [0, 4]) next to (%q", a, b), []int64{1, 3}, nonNilSeqs(got)); d != nil {
			return d
		}
		if err := expectLatest(ctx, c, b, b5, fmt.Sprintf("PruneSnapshots on %q", a)); err != nil {
			return err
		}
		if err := save(ctx, c, a3); err != nil {
			return err
		}
	}
	if ssHas(c, spi.MethodDeleteExecution) {
		if err := c.Store.(spi.SnapshotDeleter).DeleteExecution(ctx, b); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", b), err, "nil")
		}
		if err := expectLatest(ctx, c, a, a3, fmt.Sprintf("DeleteExecution of %q", b)); err != nil {
			return err
		}
	}
	return nil
}

func nonNilSeqs(s []int64) []int64 {
	if s == nil {
		return []int64{}
	}
	return s
}

func ssSaveReplacesWhole(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("replace-whole")
	sealed2 := snap(x, 2, stateAt(2, "sealed-2"))
	sealed2.Sealed = true
	first := spi.Snapshot{ExecutionID: x, Sequence: 4, Sealed: true,
		State: json.RawMessage(`{"status":"running","variables":{"old":1,"kept":{"a":1}},"frames":{"s1":{"status":"running"}},"sequence":4}`)}
	second := spi.Snapshot{ExecutionID: x, Sequence: 4,
		State: json.RawMessage(`{"status":"completed","variables":{"kept":{"b":2}},"sequence":4}`)}
	third := second
	third.Sealed = true
	third.State = json.RawMessage(`{"status":"completed","variables":{},"sequence":4,"output":[1]}`)
	sl, hasSealed := c.Store.(spi.SealedLoader)
	hasSealed = hasSealed && ssHas(c, spi.MethodLoadLatestSealed)
	expectSealed := func(want spi.Snapshot, after string) error {
		if !hasSealed {
			return nil
		}
		got, err := sl.LoadLatestSealed(ctx, x)
		if err != nil {
			return c.Failf("LoadLatestSealed", fmt.Sprintf("%q) after (%s", x, after), err, fmt.Sprintf("the sealed snapshot at %d", want.Sequence))
		}
		return c.Diff("LoadLatestSealed", fmt.Sprintf("%q) after (%s", x, after), want, got, snapCmp)
	}
	for _, s := range []spi.Snapshot{sealed2, first, second} {
		if err := save(ctx, c, s); err != nil {
			return err
		}
	}
	const unsealed = "a sealed save at 4, then an unsealed save at 4 with another state"
	if err := expectLatest(ctx, c, x, second, unsealed); err != nil {
		return err
	}
	if err := expectSealed(sealed2, unsealed); err != nil {
		return err
	}
	if err := save(ctx, c, third); err != nil {
		return err
	}
	const resealed = "an unsealed save at 4, then a sealed save at 4 with another state"
	if err := expectLatest(ctx, c, x, third, resealed); err != nil {
		return err
	}
	if err := expectSealed(third, resealed); err != nil {
		return err
	}
	// A state that differs only where a double cannot tell (a store skipping "unchanged" saves
	// must compare by value, I-STORE-29) is still a new state.
	fourth := third
	fourth.State = json.RawMessage(`{"status":"completed","variables":{"n":12345678901234567890},"sequence":4,"output":[1]}`)
	fifth := fourth
	fifth.State = json.RawMessage(`{"status":"completed","variables":{"n":12345678901234567891},"sequence":4,"output":[1]}`)
	for _, s := range []spi.Snapshot{fourth, fifth} {
		if err := save(ctx, c, s); err != nil {
			return err
		}
	}
	return expectLatest(ctx, c, x, fifth, "saves at 4 whose states differ only in a number beyond 2^64")
}

func ssReadersWholeSave(ctx context.Context, c *SnapshotStoreCase) error {
	x := c.ExecID("readers-save")
	const rounds = 12
	var returned atomic.Int64 // highest sequence whose save has returned
	returned.Store(-1)
	// Round i saves a new top at i, then the same top again: a replace that is not atomic shows
	// as an older latest (or none) while it runs.
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		for again, tag := range []string{"new", "again"} {
			if err := save(ctx, c, snap(x, int64(i), stateAt(int64(i), tag))); err != nil {
				return err
			}
			if again == 0 {
				returned.Store(int64(i))
			}
		}
		return nil
	}, func(int, int, bool) error {
		floor := returned.Load()
		got, err := c.Store.LoadLatest(ctx, x)
		switch {
		case floor < 0:
			return nil
		case errors.Is(err, spi.ErrNotFound):
			return c.Failf("LoadLatest", fmt.Sprintf("%q) racing saves, after the save at %d returned (", x, floor), err, fmt.Sprintf("the snapshot at %d or later", floor))
		case err != nil:
			return c.Failf("LoadLatest", fmt.Sprintf("%q", x), err, "nil")
		case got.Sequence < floor:
			return c.Failf("LoadLatest", fmt.Sprintf("%q) racing saves, after the save at %d returned (", x, floor), fmt.Sprintf("the snapshot at %d", got.Sequence), fmt.Sprintf("the snapshot at %d or later", floor))
		}
		return nil
	})
}
