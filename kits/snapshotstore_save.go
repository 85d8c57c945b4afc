package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/spi"
)

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

// ssConcurrent races saves at different sequences, released together by a gate, in a seeded
// order (so the highest sequence is not always the last to start), over several rounds: a store
// whose latest is decided by the last writer rather than the highest sequence shows on almost
// every seed (measured by TestSeedDependence in kits/broken). Sixteen rounds, because six missed a
// pointer moved with check-then-act over one yield (a natural window) about once in a hundred runs
// while other kits ran in the same process (docs/performance.md).
func ssConcurrent(ctx context.Context, c *SnapshotStoreCase) error {
	const n, rounds = 12, 16
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
	return expectSealed(third, resealed)
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
