package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// Relax sets the collector's pace to percent (as GOGC=percent would) until a collection finds
// more than limit bytes of live heap, then restores the pace the process had. It does nothing when
// the environment sets GOGC: the user's choice stands. Before the hand-back the heap stays below
// about limit×(1+percent/100); after it the default pace holds it to twice the live heap.
//
// It returns a function that restores the previous pace at once; calling it again does nothing.
func Relax(percent int, limit uint64) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	w := &watch{limit: limit}
	w.restore = debug.SetGCPercent(percent)
	w.arm()
	return w.stop
}

// watch reads the live heap after each collection, from a cleanup attached to an object nothing
// references, re-armed after every collection until the bound is crossed or stop is called.
type watch struct {
	limit   uint64
	restore int
	once    sync.Once
	stopped atomic.Bool
}

// sentinel is larger than the tiny allocator's 16-byte blocks, so it is freed, and its cleanup
// run, by the first collection after it is made.
type sentinel [32]byte

func (w *watch) arm() {
	armCleanup(w.check)
}

// armCleanup runs f after the next collection.
func armCleanup(f func()) {
	runtime.AddCleanup(new(sentinel), func(f func()) { f() }, f)
}

func (w *watch) check() {
	if w.stopped.Load() {
		return
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > w.limit {
		w.stop()
		return
	}
	w.arm()
}

func (w *watch) stop() {
	w.once.Do(func() {
		w.stopped.Store(true)
		debug.SetGCPercent(w.restore)
	})
}
