package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// journal records the store calls of a run, in order, across stores.
type journal struct {
	mu  sync.Mutex
	ops []string
}

func (j *journal) add(op string) {
	j.mu.Lock()
	j.ops = append(j.ops, op)
	j.mu.Unlock()
}

func (j *journal) index(op string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, o := range j.ops {
		if o == op {
			return i
		}
	}
	return -1
}

// events is a memory EventStore that journals deleteThrough and deleteExecution.
type events struct {
	*memory.EventStore
	j *journal
}

func (e events) DeleteThrough(ctx context.Context, id string, through int64) error {
	e.j.add("deleteThrough")
	return e.EventStore.DeleteThrough(ctx, id, through)
}

func (e events) DeleteExecution(ctx context.Context, id string) error {
	e.j.add("deleteExecution")
	return e.EventStore.DeleteExecution(ctx, id)
}

// plainEvents has append, read and deleteExecution but no deleteThrough (nor acquireFence, storeNow).
type plainEvents struct {
	inner *memory.EventStore
	j     *journal
}

func (p plainEvents) Append(ctx context.Context, id string, evs []spi.Envelope, o spi.AppendOptions) error {
	return p.inner.Append(ctx, id, evs, o)
}
func (p plainEvents) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return p.inner.Read(ctx, id)
}
func (p plainEvents) DeleteExecution(ctx context.Context, id string) error {
	p.j.add("deleteExecution")
	return p.inner.DeleteExecution(ctx, id)
}

// archive is a memory ArchiveStore that journals appends and counts reads; failReads makes every
// read fail.
type archive struct {
	*memory.ArchiveStore
	j         *journal
	failReads bool
	reads     *int
}

func newArchive(j *journal) archive { return archive{memory.NewArchiveStore(), j, false, new(int)} }

func (a archive) Append(ctx context.Context, id string, evs []spi.Envelope) error {
	a.j.add("archive.append")
	return a.ArchiveStore.Append(ctx, id, evs)
}

func (a archive) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	*a.reads++
	if a.failReads {
		return nil, errors.New("archive: every read fails in this test")
	}
	return a.ArchiveStore.Read(ctx, id)
}

// genLog is a realistic execution log of the fold property generator, fixed by seed.
func genLog(id string, seed int) []spi.Envelope {
	return foldprops.Log(foldprops.GenOptions{ExecutionID: id, MaxActions: 30}).Example(seed)
}

// world is a lifecycle over journaled memory stores holding one generated log.
type world struct {
	ctx  context.Context
	j    *journal
	es   events
	ss   *memory.SnapshotStore
	as   archive
	lc   *lifecycle.LogLifecycle
	id   string
	log  []spi.Envelope
	want fold.State
}

func newWorld(h lifecycle.Hooks, seed int) (*world, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	_ = cancel
	w := &world{ctx: ctx, j: &journal{}, ss: memory.NewSnapshotStore(), id: fmt.Sprintf("exec-%d", seed)}
	w.es = events{memory.NewEventStore(), w.j}
	w.as = newArchive(w.j)
	for s := seed; len(w.log) < 6; s += 1000 {
		w.log = genLog(w.id, s)
	}
	if err := w.es.Append(ctx, w.id, w.log, spi.AppendOptions{}); err != nil {
		return nil, err
	}
	var err error
	if w.want, err = fold.Fold(fold.Current(), nil, w.log); err != nil {
		return nil, err
	}
	w.lc, err = lifecycle.New(lifecycle.Config{Store: w.es, Snapshots: w.ss, Archive: w.as, Hooks: h})
	return w, err
}

// sameState compares folded states by their canonical bytes.
func sameState(a, b fold.State) string {
	x, _ := fold.CanonicalState(a)
	y, _ := fold.CanonicalState(b)
	if string(x) == string(y) {
		return ""
	}
	return cmp.Diff(string(x), string(y))
}

// failf is the failure grammar: <check id> [<clause ids>]: Op(args) = got, want want.
// An args of the form "a) context (" puts the context after the want, as the kits do.
func failf(check string, clauses []string, op, args string, got, want any) error {
	context := ""
	if i := strings.Index(args, ") "); i >= 0 && strings.HasSuffix(args, " (") {
		args, context = args[:i], " ("+strings.TrimSuffix(args[i+2:], " (")+")"
	}
	return fmt.Errorf("%s %v: %s(%s) = %v, want %v%s", check, clauses, op, args, got, want, context)
}
