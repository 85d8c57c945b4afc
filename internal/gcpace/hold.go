package gcpace

import (
	"os"
	"runtime/debug"
	"sync"
)

// HoldThenRelax keeps the collector off until the heap first reaches first bytes (a soft memory
// limit; the process's own limit when that is lower), then paces it as Relax(percent, limit) does.
// A batch command whose whole heap stays under first never collects: a fold of a log of tens of
// megabytes spent one cycle, about a fifteenth of its CPU time, on a heap it was about to drop at
// exit. Before the first collection the heap stays near first; after it, as Relax says. It does
// nothing when the environment sets GOGC: the user's choice stands.
//
// It returns a function that restores the previous pace and memory limit at once; calling it
// again does nothing.
func HoldThenRelax(first int64, percent int, limit uint64) (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	h := &hold{percent: percent, memLimit: debug.SetMemoryLimit(-1)}
	h.w = &watch{limit: limit, restore: debug.SetGCPercent(-1)}
	debug.SetMemoryLimit(min(first, h.memLimit))
	h.held = true
	armCleanup(h.release)
	return h.stop
}

// hold is the first phase of HoldThenRelax: the collector off under a memory limit. The first
// collection (the limit reached, or one a caller forced) ends it: the process's memory limit comes
// back, the pace becomes percent, and the watch of Relax takes over.
type hold struct {
	mu       sync.Mutex
	held     bool
	percent  int
	memLimit int64 // the process's memory limit before the hold
	w        *watch
}

// release ends the hold at the first collection, unless stop came first.
func (h *hold) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.held || h.w.stopped.Load() {
		return
	}
	h.held = false
	debug.SetMemoryLimit(h.memLimit)
	debug.SetGCPercent(h.percent)
	h.w.check()
}

// stop restores the memory limit if the hold still stands, and the pace the process had.
func (h *hold) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		h.held = false
		debug.SetMemoryLimit(h.memLimit)
	}
	h.w.stop()
}
