package kits_test

import (
	"context"
	"encoding/json"
	"io"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	dispatchmem "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// liar decides, call by call and seeded, whether a hostile store lies and how: a value of the
// right type but the wrong length, order, sequence, size or sign.
type liar struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newLiar(seed int64) *liar { return &liar{r: rand.New(rand.NewSource(seed))} }

// pick returns -1 (tell the truth, two times in three) or a lie number below n.
func (l *liar) pick(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r.Intn(3) > 0 {
		return -1
	}
	return l.r.Intn(n)
}

func (l *liar) envelopes(in []spi.Envelope) []spi.Envelope {
	out := append([]spi.Envelope(nil), in...)
	switch l.pick(10) {
	case 0:
		if len(out) > 0 {
			out = out[:len(out)/2]
		}
	case 1:
		if len(out) > 0 {
			out = out[1:]
		}
	case 2:
		if len(out) > 0 {
			out = append(out, out[len(out)-1])
		}
	case 3:
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case 4:
		for i := range out {
			out[i].Sequence += 7
		}
	case 5:
		return []spi.Envelope{}
	case 6:
		return nil
	case 7:
		for i := range out {
			out[i].Payload, out[i].Metadata = nil, json.RawMessage(`[]`)
		}
	case 8:
		for i := range out {
			out[i].ExecutionID += "-other"
		}
	case 9:
		out = append(out, spi.Envelope{ExecutionID: "x", Sequence: 1 << 62, Payload: json.RawMessage(`{}`)})
	}
	return out
}

func (l *liar) bytes(in []byte) []byte {
	switch l.pick(4) {
	case 0:
		return in[:len(in)/2]
	case 1:
		return append(append([]byte(nil), in...), "\xff\xfe tail"...)
	case 2:
		return nil
	case 3:
		return []byte(strings.ToUpper(string(in)))
	}
	return in
}

func (l *liar) number(in int64) int64 {
	switch l.pick(4) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return 1 << 62
	case 3:
		return in + 1
	}
	return in
}

func (l *liar) text(in string) string {
	switch l.pick(3) {
	case 0:
		return ""
	case 1:
		return in + "\x00"
	case 2:
		if len(in) > 0 {
			return in[:len(in)-1]
		}
	}
	return in
}

func (l *liar) numbers(in []int64) []int64 {
	out := append([]int64(nil), in...)
	switch l.pick(4) {
	case 0:
		return nil
	case 1:
		return append(out, -5)
	case 2:
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	case 3:
		if len(out) > 0 {
			out = out[1:]
		}
	}
	return out
}

func (l *liar) strings(in []string) []string {
	out := append([]string(nil), in...)
	switch l.pick(3) {
	case 0:
		return nil
	case 1:
		return append(out, out...)
	case 2:
		return append(out, "")
	}
	return out
}

type hostileES struct {
	*memory.EventStore
	l *liar
}

func (s hostileES) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.EventStore.Read(ctx, id)
	return s.l.envelopes(got), err
}

func (s hostileES) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	got, err := s.EventStore.ReadRange(ctx, id, from, to)
	return s.l.envelopes(got), err
}

func (s hostileES) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	f, err := s.EventStore.AcquireFence(ctx, id)
	f.Token = s.l.number(f.Token)
	return f, err
}

func (s hostileES) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	f, err := s.EventStore.AcquireFenceIf(ctx, id, expected)
	f.Token = s.l.number(f.Token)
	return f, err
}

func (s hostileES) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	a, err := s.EventStore.Observe(ctx, id)
	return spi.Anchor(s.l.text(string(a))), err
}

func (s hostileES) StoreNow(ctx context.Context) (int64, error) {
	n, err := s.EventStore.StoreNow(ctx)
	return s.l.number(n), err
}

func (s hostileES) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	p, err := s.EventStore.ListExecutionsPage(ctx, cursor, limit)
	p.ExecutionIDs, p.Next = s.l.strings(p.ExecutionIDs), s.l.text(p.Next)
	return p, err
}

type hostileSS struct {
	*memory.SnapshotStore
	l *liar
}

func (s hostileSS) snap(sn spi.Snapshot, err error) (spi.Snapshot, error) {
	sn.Sequence, sn.ExecutionID = s.l.number(sn.Sequence), s.l.text(sn.ExecutionID)
	sn.State = s.l.bytes(sn.State)
	return sn, err
}

func (s hostileSS) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.snap(s.SnapshotStore.LoadLatest(ctx, id))
}

func (s hostileSS) LoadLatestSealed(ctx context.Context, id string) (spi.Snapshot, error) {
	return s.snap(s.SnapshotStore.LoadLatestSealed(ctx, id))
}

func (s hostileSS) ListSequences(ctx context.Context, id string) ([]int64, error) {
	got, err := s.SnapshotStore.ListSequences(ctx, id)
	return s.l.numbers(got), err
}

func (s hostileSS) PruneSnapshots(ctx context.Context, id string, r spi.SeqRange) ([]int64, error) {
	got, err := s.SnapshotStore.PruneSnapshots(ctx, id, r)
	return s.l.numbers(got), err
}

type hostileAS struct {
	*memory.ArchiveStore
	l *liar
}

func (s hostileAS) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.ArchiveStore.Read(ctx, id)
	return s.l.envelopes(got), err
}

type hostileBR struct {
	*memory.BranchRegistry
	l *liar
}

func (s hostileBR) Get(ctx context.Context, id string) (spi.Branch, error) {
	b, err := s.BranchRegistry.Get(ctx, id)
	b.ID, b.ParentID, b.ForkSequence, b.Metadata = s.l.text(b.ID), s.l.text(b.ParentID), s.l.number(b.ForkSequence), s.l.bytes(b.Metadata)
	return b, err
}

func (s hostileBR) ListChildren(ctx context.Context, id string) ([]spi.Branch, error) {
	got, err := s.BranchRegistry.ListChildren(ctx, id)
	if s.l.pick(2) >= 0 && len(got) > 0 {
		got = append(got[1:], spi.Branch{ID: "", ParentID: id, ForkSequence: -3})
	}
	return got, err
}

type hostileCS struct {
	*memory.ContentStore
	l *liar
}

func (s hostileCS) ref(r spi.ContentRef, err error) (spi.ContentRef, error) {
	r.Digest, r.Size = s.l.text(r.Digest), s.l.number(r.Size)
	return r, err
}

func (s hostileCS) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	return s.ref(s.ContentStore.Put(ctx, data))
}

func (s hostileCS) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return s.ref(s.ContentStore.PutStream(ctx, r))
}

func (s hostileCS) Get(ctx context.Context, d string) ([]byte, error) {
	got, err := s.ContentStore.Get(ctx, d)
	return s.l.bytes(got), err
}

func (s hostileCS) GetFor(ctx context.Context, a spi.ContentAccess, d string) ([]byte, error) {
	got, err := s.ContentStore.GetFor(ctx, a, d)
	return s.l.bytes(got), err
}

type hostileDS struct {
	*memory.DurableStateStore
	l *liar
}

func (s hostileDS) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	e, err := s.DurableStateStore.Get(ctx, key)
	e.Key, e.Value, e.Version = s.l.text(e.Key), s.l.bytes(e.Value), s.l.number(e.Version)
	return e, err
}

func (s hostileDS) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	n, err := s.DurableStateStore.Set(ctx, key, v, pre)
	return s.l.number(n), err
}

type hostileRM struct {
	*memory.ReadModelStore
	l *liar
}

func (s hostileRM) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	p, err := s.ReadModelStore.Query(ctx, model, q)
	p.NextCursor = s.l.text(p.NextCursor)
	switch s.l.pick(4) {
	case 0:
		p.Docs = nil
	case 1:
		p.Docs = append(p.Docs, p.Docs...)
	case 2:
		for i := range p.Docs {
			p.Docs[i].Doc = s.l.bytes(p.Docs[i].Doc)
		}
	case 3:
		if len(p.Docs) > 0 {
			p.Docs = p.Docs[1:]
		}
	}
	return p, err
}

type hostileDispatcher struct {
	*dispatchmem.Dispatcher
	l *liar
}

func (d hostileDispatcher) Targets(ctx context.Context) ([]string, error) {
	ts, err := d.Dispatcher.Targets(ctx)
	return d.l.strings(ts), err
}

func (d hostileDispatcher) lease(l spi.Lease) spi.Lease {
	l.Token, l.Worker, l.ExpiresAt = d.l.text(l.Token), d.l.text(l.Worker), d.l.number(l.ExpiresAt)
	l.Delivery = int(d.l.number(int64(l.Delivery)))
	l.Package.ExecutionID, l.Package.Hints = d.l.text(l.Package.ExecutionID), d.l.bytes(l.Package.Hints)
	return l
}

func (d hostileDispatcher) Claim(ctx context.Context, r spi.ClaimRequest) (spi.Lease, bool, error) {
	l, ok, err := d.Dispatcher.Claim(ctx, r)
	return d.lease(l), ok, err
}

func (d hostileDispatcher) Heartbeat(ctx context.Context, l spi.Lease, ttl time.Duration) (spi.Lease, error) {
	nl, err := d.Dispatcher.Heartbeat(ctx, l, ttl)
	return d.lease(nl), err
}

// hostileRun runs kit against a fresh hostile target per check and fails the test on any result
// that says the harness panicked: the kits validate every value a target returns before they use
// it (a wrong answer is a fail, never a crash).
func hostileRun[T any](t *testing.T, kit kits.Kit[T], mk func(l *liar) T) {
	t.Helper()
	for seed := int64(1); seed <= 3; seed++ {
		l := newLiar(seed)
		results, err := kits.Run(context.Background(), kit, func(context.Context) (T, func(), error) { return mk(l), nil, nil },
			kits.Options{Seed: seed, Timeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if strings.Contains(r.Message, "harness panicked") {
				t.Errorf("seed %d: %s: %s", seed, r.CheckID, r.Message)
			}
		}
	}
}

// Reference: DESIGN §7.1 (a panic in harness code is a bug); issue class "the harness never
// crashes on a target's answers". Every kit meets a target whose answers are of the right type
// and the wrong length, order, sign, size or content.
func TestHostileTargetsNeverCrashTheKits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every kit three times against lying targets")
	}
	t.Run("eventstore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.EventStoreKit(), func(l *liar) spi.EventStore {
			return hostileES{memory.NewEventStoreWithClock(time.Now), l}
		})
	})
	t.Run("snapshotstore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.SnapshotStoreKit(), func(l *liar) spi.SnapshotStore { return hostileSS{memory.NewSnapshotStore(), l} })
	})
	t.Run("archivestore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.ArchiveStoreKit(), func(l *liar) spi.ArchiveStore { return hostileAS{memory.NewArchiveStore(), l} })
	})
	t.Run("branchregistry", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.BranchRegistryKit(), func(l *liar) spi.BranchRegistry { return hostileBR{memory.NewBranchRegistry(), l} })
	})
	t.Run("contentstore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.ContentStoreKit(), func(l *liar) spi.ContentStore { return hostileCS{memory.NewContentStore(), l} })
	})
	t.Run("durablestatestore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.DurableStateStoreKit(), func(l *liar) spi.DurableStateStore {
			return hostileDS{memory.NewDurableStateStore(), l}
		})
	})
	t.Run("readmodelstore", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.ReadModelStoreKit(), func(l *liar) spi.ReadModelStore { return hostileRM{memory.NewReadModelStore(), l} })
	})
	t.Run("dispatcher", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, kits.ExecutionDispatcherKit(), func(l *liar) spi.ExecutionDispatcher {
			return hostileDispatcher{dispatchmem.New(dispatchmem.Config{Targets: []string{"cpu", "gpu"}}), l}
		})
	})
}
