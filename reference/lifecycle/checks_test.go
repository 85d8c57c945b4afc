package lifecycle_test

import (
	"context"
	"errors"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// lifecycleCheck is one behaviour of LogLifecycle as a function of the hooks, so the same code
// passes the reference and rejects each mutant (mutants_test.go).
type lifecycleCheck struct {
	id      string
	clauses []string
	run     func(h lifecycle.Hooks) error
}

func lifecycleChecks() []lifecycleCheck {
	return []lifecycleCheck{
		{"lifecycle/compact-archives-first", []string{"S7.as.compact-archives-first", "I-LIFECYCLE-1"}, checkCompactArchivesFirst},
		{"lifecycle/compact-needs-archive", []string{"S7.as.compact-archives-first", "I-LIFECYCLE-1"}, checkCompactNeedsArchive},
		{"lifecycle/delete-through-no-fallback", []string{"S7.es.delete-through-no-fallback"}, checkNoFallback},
		{"lifecycle/archive-not-read", []string{"S7.as.not-read-on-replay"}, checkArchiveNotRead},
		{"lifecycle/prune-snapshots", []string{"S7.ss.prune-range", "S7.ss.list-sequences", "I-LIFECYCLE-2"}, checkPrune},
		{"lifecycle/no-fence-single-node", []string{"S7.es.no-fence-single-node"}, checkFencing},
		{"lifecycle/store-now-fallback", []string{"S7.es.store-now-fallback", "S7.es.store-now", "I-STORE-23"}, checkStoreNow},
	}
}

func checkCompactArchivesFirst(h lifecycle.Hooks) error {
	const id = "lifecycle/compact-archives-first"
	cl := []string{"S7.as.compact-archives-first", "I-LIFECYCLE-1"}
	for seed := 1; seed <= 5; seed++ {
		w, err := newWorld(h, seed)
		if err != nil {
			return err
		}
		through := int64(len(w.log) / 2)
		if _, err := w.lc.Compact(w.ctx, w.id, through); err != nil {
			return failf(id, cl, "Compact", w.id, err, "nil")
		}
		a, d := w.j.index("archive.append"), w.j.index("deleteThrough")
		if a < 0 || d < 0 || a > d {
			return failf(id, cl, "Compact", w.id, w.j.ops, "archive.append before deleteThrough")
		}
		got, _ := w.as.ArchiveStore.Read(w.ctx, w.id)
		if diff := cmp.Diff(w.log[:through+1], got, jsonCmp); diff != "" {
			return failf(id, cl, "ArchiveStore.Read", w.id+") after (Compact through "+itoa(through), "other envelopes (-want +got):\n"+diff, "exactly the envelopes removed")
		}
		rest, _ := w.es.Read(w.ctx, w.id)
		if diff := cmp.Diff(w.log[through+1:], rest, jsonCmp); diff != "" {
			return failf(id, cl, "EventStore.Read", w.id+") after (Compact through "+itoa(through), "(-want +got):\n"+diff, "the envelopes after through")
		}
		st, err := w.lc.Replay(w.ctx, w.id)
		if err != nil {
			return failf(id, cl, "Replay", w.id, err, "nil")
		}
		if diff := sameState(w.want, st); diff != "" {
			return failf(id, cl, "Replay", w.id+") after (Compact", "another state:\n"+diff, "the state of the whole log")
		}
	}
	return nil
}

func checkCompactNeedsArchive(h lifecycle.Hooks) error {
	const id = "lifecycle/compact-needs-archive"
	cl := []string{"S7.as.compact-archives-first", "I-LIFECYCLE-1"}
	w, err := newWorld(h, 11)
	if err != nil {
		return err
	}
	lc, _ := lifecycle.New(lifecycle.Config{Store: w.es, Snapshots: w.ss, Hooks: h})
	_, err = lc.Compact(w.ctx, w.id, 2)
	if !errors.Is(err, lifecycle.ErrNoArchive) {
		return failf(id, cl, "Compact", w.id+", 2) without an ArchiveStore (", err, "ErrNoArchive")
	}
	if rest, _ := w.es.Read(w.ctx, w.id); len(rest) != len(w.log) {
		return failf(id, cl, "EventStore.Read", w.id+") after (a refused Compact", len(rest), len(w.log))
	}
	return nil
}

func checkNoFallback(h lifecycle.Hooks) error {
	const id = "lifecycle/delete-through-no-fallback"
	cl := []string{"S7.es.delete-through-no-fallback"}
	w, err := newWorld(h, 21)
	if err != nil {
		return err
	}
	plain := plainEvents{w.es.EventStore, w.j}
	lc, _ := lifecycle.New(lifecycle.Config{Store: plain, Snapshots: w.ss, Archive: w.as, Hooks: h})
	_, err = lc.Compact(w.ctx, w.id, 2)
	if !errors.Is(err, lifecycle.ErrNoDeleteThrough) {
		return failf(id, cl, "Compact", w.id+", 2) on a store without deleteThrough (", err, "ErrNoDeleteThrough")
	}
	if w.j.index("deleteExecution") >= 0 {
		return failf(id, cl, "Compact", w.id+", 2) on a store without deleteThrough (", "deleteExecution called", "no deleteExecution")
	}
	if rest, _ := plain.Read(w.ctx, w.id); len(rest) != len(w.log) {
		return failf(id, cl, "EventStore.Read", w.id+") after (a refused Compact", len(rest), len(w.log))
	}
	return nil
}

func checkArchiveNotRead(h lifecycle.Hooks) error {
	const id = "lifecycle/archive-not-read"
	cl := []string{"S7.as.not-read-on-replay"}
	w, err := newWorld(h, 31)
	if err != nil {
		return err
	}
	through := int64(len(w.log) / 3)
	if _, err := w.lc.Compact(w.ctx, w.id, through); err != nil {
		return failf(id, cl, "Compact", w.id, err, "nil")
	}
	failing := w.as
	failing.failReads = true
	reads := *failing.reads
	lc, _ := lifecycle.New(lifecycle.Config{Store: w.es, Snapshots: w.ss, Archive: failing, Hooks: h})
	st, err := lc.Replay(w.ctx, w.id)
	if err != nil {
		return failf(id, cl, "Replay", w.id+") with an archive that fails every read (", err, "nil")
	}
	if diff := sameState(w.want, st); diff != "" {
		return failf(id, cl, "Replay", w.id, "another state:\n"+diff, "the state of the whole log")
	}
	if _, err := lc.ReadRange(w.ctx, w.id, 0, -1); err != nil {
		return failf(id, cl, "ReadRange", w.id+", 0, -1) with an archive that fails every read (", err, "nil")
	}
	if n := *failing.reads - reads; n != 0 {
		return failf(id, cl, "Replay", w.id, n, "0 archive reads")
	}
	if _, err := lc.ReadArchived(w.ctx, w.id); err == nil {
		return failf(id, cl, "ReadArchived", w.id+") with an archive that fails every read (", "nil", "the archive's error")
	}
	return nil
}

func checkPrune(h lifecycle.Hooks) error {
	const id = "lifecycle/prune-snapshots"
	cl := []string{"S7.ss.prune-range", "S7.ss.list-sequences", "I-LIFECYCLE-2"}
	w, err := newWorld(h, 41)
	if err != nil {
		return err
	}
	last := w.log[len(w.log)-1].Sequence
	mids := []int64{0, last / 2, last}
	for _, q := range mids {
		if err := w.ss.Save(w.ctx, spi.Snapshot{ExecutionID: w.id, Sequence: q, State: []byte(`{}`)}); err != nil {
			return err
		}
	}
	dry, err := w.lc.PruneSnapshots(w.ctx, w.id, lifecycle.PruneOptions{DryRun: true})
	if err != nil {
		return failf(id, cl, "PruneSnapshots", w.id+", dryRun", err, "nil")
	}
	if diff := cmp.Diff([]int64{0, last / 2}, dry.Deleted); diff != "" || dry.Kept != last {
		return failf(id, cl, "PruneSnapshots", w.id+", dryRun", dry, "deletes all but the latest, keeps "+itoa(last))
	}
	if seqs, _ := w.ss.ListSequences(w.ctx, w.id); len(seqs) != 3 {
		return failf(id, cl, "ListSequences", w.id+") after (a dry run", seqs, mids)
	}
	if _, err := w.lc.PruneSnapshots(w.ctx, w.id, lifecycle.PruneOptions{}); err != nil {
		return failf(id, cl, "PruneSnapshots", w.id, err, "nil")
	}
	seqs, _ := w.ss.ListSequences(w.ctx, w.id)
	if diff := cmp.Diff([]int64{last}, seqs); diff != "" {
		return failf(id, cl, "ListSequences", w.id+") after (PruneSnapshots", seqs, []int64{last})
	}
	return nil
}

func checkFencing(h lifecycle.Hooks) error {
	const id = "lifecycle/no-fence-single-node"
	cl := []string{"S7.es.no-fence-single-node"}
	ctx := context.Background()
	j := &journal{}
	unfenced, _ := lifecycle.New(lifecycle.Config{Store: plainEvents{memory.NewEventStore(), j}, Hooks: h})
	if f := unfenced.Fencing(); f.Fenced {
		return failf(id, cl, "Fencing", "a store without acquireFence", f, "not fenced, single-node")
	}
	if tok, fenced, err := unfenced.AcquireFence(ctx, "x"); tok != 0 || fenced || err != nil {
		return failf(id, cl, "AcquireFence", "a store without acquireFence", []any{tok, fenced, err}, "0, false, nil")
	}
	fencedLC, _ := lifecycle.New(lifecycle.Config{Store: memory.NewEventStore(), Hooks: h})
	if f := fencedLC.Fencing(); !f.Fenced {
		return failf(id, cl, "Fencing", "a store with acquireFence", f, "fenced")
	}
	if tok, fenced, err := fencedLC.AcquireFence(ctx, "x"); tok <= 0 || !fenced || err != nil {
		return failf(id, cl, "AcquireFence", "a store with acquireFence", []any{tok, fenced, err}, "a token, true, nil")
	}
	return nil
}

func checkStoreNow(h lifecycle.Hooks) error {
	const id = "lifecycle/store-now-fallback"
	cl := []string{"S7.es.store-now-fallback", "S7.es.store-now", "I-STORE-23"}
	ctx := context.Background()
	injected := func() int64 { return 1_000 }
	noClock, _ := lifecycle.New(lifecycle.Config{Store: memory.NewEventStore(), Now: injected, Hooks: h})
	if got, err := noClock.Now(ctx); err != nil || got != 1_000 {
		return failf(id, cl, "Now", "a store without storeNow", []any{got, err}, "the injected clock, 1000")
	}
	storeTime := time.UnixMilli(1_767_225_600_000)
	withClock, _ := lifecycle.New(lifecycle.Config{Store: memory.NewEventStoreWithClock(func() time.Time { return storeTime }), Now: injected, Hooks: h})
	if got, err := withClock.Now(ctx); err != nil || got != storeTime.UnixMilli() {
		return failf(id, cl, "Now", "a store with storeNow", []any{got, err}, storeTime.UnixMilli())
	}
	return nil
}
