package deploysim

import (
	"context"
	"errors"

	"github.com/loom-kernel/loom-conform/spi"
)

// workerStore is a worker's handle on the shared EventStore: it dies with the worker, checks the
// worker's lease before a write, holds the armed pause and crash points, injects store faults, and
// records every acknowledged and refused append for the invariants.
type workerStore struct {
	w *worker
}

var _ spi.EventStore = (*workerStore)(nil)

// fencingStore is workerStore with acquireFence (every correct worker fences its writes).
type fencingStore struct{ *workerStore }

func (f fencingStore) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	if f.w.crashed {
		return spi.Fence{}, errCrashed
	}
	return f.w.s.events.AcquireFence(ctx, id)
}

func (ws *workerStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if ws.w.crashed {
		return nil, errCrashed
	}
	return ws.w.s.events.Read(ctx, id)
}

func (ws *workerStore) Append(ctx context.Context, id string, envs []spi.Envelope, opts spi.AppendOptions) error {
	w, s := ws.w, ws.w.s
	if w.crashed {
		return errCrashed
	}
	if !w.heartbeat() {
		s.refusals = append(s.refusals, refusal{worker: w.name, token: w.lease.Token, exec: id, err: errLeaseGone, superseded: s.superseded(w)})
		return errLeaseGone
	}
	if w.pause == "in-append" && w.appends > 0 { // past the opening batch, inside the fenced run
		w.block()
	}
	if s.permille(s.sc.StoreFault) {
		switch s.rng.Intn(3) {
		case 0: // slow store: the call takes longer than the lease
			s.advance(int64(s.rng.Intn(2 * leaseTTL)))
		case 1: // connection lost before the write
			return errLostConn
		case 2: // connection lost after the write: committed, not acknowledged
			if err := s.events.Append(ctx, id, envs, opts); err != nil {
				return err
			}
			s.dirty[id] = true
			return errLostConn
		}
	}
	err := s.events.Append(ctx, id, envs, opts)
	if err != nil {
		if errors.Is(err, spi.ErrFenced) {
			s.res.Fenced++
		}
		s.refusals = append(s.refusals, refusal{worker: w.name, token: w.lease.Token, exec: id, err: err, superseded: s.superseded(w), opening: w.appends == 0})
		w.appends++
		return err
	}
	w.appends++
	s.dirty[id] = true
	for _, e := range envs {
		s.acked = append(s.acked, ackedAppend{worker: w.name, token: w.lease.Token, env: e, afterLost: w.lost, superseded: s.superseded(w)})
	}
	if w.crash == "after-append" {
		w.crash, w.crashed = "", true
	}
	return nil
}

// snapStore is one writer profile's SnapshotStore; readers lists the profiles of the workers that
// read it (the invariants fold its snapshots as each of them).
type snapStore struct {
	spi.SnapshotStore
	writer  string
	readers []string
	saved   []spi.Snapshot
}

func (ss *snapStore) Save(ctx context.Context, snap spi.Snapshot) error {
	if err := ss.SnapshotStore.Save(ctx, snap); err != nil {
		return err
	}
	ss.saved = append(ss.saved, snap)
	return nil
}
