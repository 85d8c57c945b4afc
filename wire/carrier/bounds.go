package carrier

import (
	"context"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// CodeCapacity is the refusal of a call that would start a run past the kernel's bounds
// (Options.MaxEvents, Options.MaxLive): nothing was appended; retry once executions finish.
const CodeCapacity = -32028

// Defaults of serve-kernel's bounds (docs/wire.md, "What the kernel holds"): about 0.9 KB of
// resident memory per event held, plus its payload, so the event bound keeps the process near
// 250 MB.
const (
	DefaultMaxEvents = 250_000
	DefaultMaxLive   = 10_000
	DefaultMaxFlows  = 10_000
)

// ledger counts the events the kernel appended to a store that holds them in memory, and the
// executions that finished, oldest first: what may be deleted to stay within MaxEvents.
type ledger struct {
	base spi.EventStore // the store itself (its DeleteExecution)

	mu       sync.Mutex
	held     int64            // events appended and not deleted
	perExec  map[string]int64 // by execution
	finished []string         // finished executions not yet deleted, the oldest first
}

func newLedger(base spi.EventStore) *ledger {
	return &ledger{base: base, perExec: map[string]int64{}}
}

// terminal reports whether an event type ends its execution's log.
func terminal(eventType string) bool {
	switch eventType {
	case manifest.ExecutionCompleted, manifest.ExecutionFailed, manifest.ExecutionCancelled, manifest.ExecutionContinued:
		return true
	}
	return false
}

func (l *ledger) appended(id string, evs []spi.Envelope) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held += int64(len(evs))
	l.perExec[id] += int64(len(evs))
	for _, e := range evs {
		if terminal(e.EventType) {
			l.finished = append(l.finished, id)
			break
		}
	}
}

// admit makes room for a new execution: below limit it does nothing; at it, it deletes finished
// executions, the oldest first, until the events held are below it, and reports whether they are.
// forget is told of each execution deleted.
func (l *ledger) admit(ctx context.Context, limit int64, forget func(id string)) (held int64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	del, canDelete := l.base.(spi.ExecutionDeleter)
	_, canForget := l.base.(forgetter)
	canDelete = canDelete || canForget
	for l.held >= limit && canDelete && len(l.finished) > 0 {
		id := l.finished[0]
		l.finished = l.finished[1:]
		if f, ok := l.base.(forgetter); ok {
			f.Forget(id) // the execution finished: nothing will drive it again (memory.EventStore)
		} else if err := del.DeleteExecution(ctx, id); err != nil {
			l.finished = append([]string{id}, l.finished...)
			break
		}
		l.held -= l.perExec[id]
		delete(l.perExec, id)
		forget(id)
	}
	if len(l.finished) == 0 {
		l.finished = nil // let the queue's array go
	}
	return l.held, l.held < limit
}

// forgetter is a store that can drop an execution and its fence history whole.
type forgetter interface{ Forget(id string) }

// Store wraps the kernel's store so the ledger sees every append that succeeded; everything else,
// the optional methods the kernel uses included, is the store's.
func (l *ledger) Store(s spi.EventStore) spi.EventStore {
	return &ledgerStore{wrapped: wrapped{s}, l: l}
}

type ledgerStore struct {
	wrapped
	l *ledger
}

func (s *ledgerStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.EventStore.Append(ctx, id, evs, opts); err != nil {
		return err
	}
	s.l.appended(id, evs)
	return nil
}

// admitStart is the bound a new execution meets: with MaxEvents, finished executions are deleted
// to make room and the start is refused when live and parked ones alone hold the bound.
func (c *Carrier) admitStart(ctx context.Context) *bridge.RPCError {
	if c.ledger == nil || c.opts.MaxEvents <= 0 {
		return nil
	}
	held, ok := c.ledger.admit(ctx, c.opts.MaxEvents, c.forget)
	if ok {
		return nil
	}
	return rpcErr(CodeCapacity, "capacity", fmt.Sprintf("the kernel holds %d events in memory, its bound (--max-events %d), all of executions that have not finished: finish or cancel some, or raise the bound", held, c.opts.MaxEvents),
		"limit", c.opts.MaxEvents, "held", held, "bound", "events")
}

// admitRun is the bound a new live run meets (under c.mu): at MaxLive runs it is refused.
func (c *Carrier) admitRun() *bridge.RPCError {
	if c.opts.MaxLive <= 0 || len(c.sessions) < c.opts.MaxLive {
		return nil
	}
	return rpcErr(CodeCapacity, "capacity", fmt.Sprintf("the kernel runs %d executions, its bound (--max-live %d): finish or cancel some, or raise the bound", len(c.sessions), c.opts.MaxLive),
		"limit", c.opts.MaxLive, "held", len(c.sessions), "bound", "live")
}

// admitFlow is the bound a start of a flow id not seen before meets: past MaxFlows wire flows it is
// refused (each is registered for the kernel's lifetime: its executions may be resumed).
func (c *Carrier) admitFlow(flowID string) *bridge.RPCError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.MaxFlows <= 0 || c.flows[flowID] || len(c.flows) < c.opts.MaxFlows {
		return nil
	}
	return rpcErr(CodeCapacity, "capacity", fmt.Sprintf("the kernel has %d flows, its bound (--max-flows %d): start an execution of a flow it has, or raise the bound", len(c.flows), c.opts.MaxFlows),
		"limit", c.opts.MaxFlows, "held", len(c.flows), "bound", "flows")
}

// forget drops what the carrier and the runtime keep of a deleted execution.
func (c *Carrier) forget(id string) {
	c.rt.SetExecutionBudget(id, nil)
	c.mu.Lock()
	delete(c.stale, id)
	c.mu.Unlock()
}
