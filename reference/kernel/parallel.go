package kernel

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Branch is one branch of Parallel.
type Branch func(ctx *Context) (any, error)

// BranchError is the first failing branch of a Parallel, by index.
type BranchError struct {
	Index int
	Err   error
}

func (e *BranchError) Error() string { return fmt.Sprintf("parallel branch %d: %v", e.Index, e.Err) }
func (e *BranchError) Unwrap() error { return e.Err }

// branchPanic carries a genuine panic of a branch to the flow goroutine.
type branchPanic struct{ value any }

// Parallel runs the branches concurrently and waits for all of them (spec §2). Each branch gets its
// own Context; their syscalls are served and recorded exactly as sequential ones. Emits inside a
// parallel of two or more branches are never stamped: whether a sibling's effect had settled is
// timing (spec §3, I-KERNEL-5). Each branch counts emits per digest from the count at the start
// of the parallel plus its own emits; after the join the count is that start count plus every
// branch's emits, so n never depends on the order the branches ran in (I-KERNEL-18). The results
// are the branches' outputs as JSON, in branch order; the error is the first failing branch's,
// by index.
func (c *Context) Parallel(branches ...Branch) ([]json.RawMessage, error) {
	c.r.mu.Lock()
	c.enter()
	entryLive := c.segmentLive()
	startN, branchN := c.branchEmitCounts(len(branches))
	c.r.mu.Unlock()
	out := make([]json.RawMessage, len(branches))
	errs := make([]error, len(branches))
	signals := make([]any, len(branches))
	var wg sync.WaitGroup
	for i, b := range branches {
		if b == nil {
			return nil, &SyscallError{Syscall: "parallel", Reason: fmt.Sprintf("branch %d is nil", i)}
		}
	}
	children := make([]*Context, len(branches))
	for i, b := range branches {
		child := &Context{r: c.r, inParallel: c.inParallel || len(branches) > 1, entryLive: entryLive, emitN: branchN[i]}
		children[i] = child
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					signals[i] = p
				}
			}()
			v, err := b(child)
			if err != nil {
				errs[i] = err
				return
			}
			raw, jerr := rawJSON(v)
			if jerr != nil {
				errs[i] = &SyscallError{Syscall: "parallel", Reason: fmt.Sprintf("branch %d output has no JSON form: %v", i, jerr)}
				return
			}
			out[i] = raw
		}()
	}
	wg.Wait()
	if c.r.rt.cfg.Hooks.ReverseParallelResults {
		slices.Reverse(out)
	}
	c.join(children, startN, branchN)
	// Unwinding signals outrank results: an abort first, then a park, then a genuine panic.
	for _, want := range []func(any) bool{isAbort, isPark, func(any) bool { return true }} {
		for _, s := range signals {
			if s != nil && want(s) {
				switch s.(type) {
				case abortSignal, parkSignal, continueSignal, branchPanic:
					panic(s)
				}
				panic(branchPanic{value: s})
			}
		}
	}
	if c.r.rt.cfg.Hooks.ParallelLastFailure {
		for i := len(errs) - 1; i >= 0; i-- {
			if errs[i] != nil {
				return out, &BranchError{Index: i, Err: errs[i]}
			}
		}
	}
	for i, err := range errs {
		if err != nil {
			return out, &BranchError{Index: i, Err: err}
		}
	}
	return out, nil
}

func isAbort(s any) bool { _, ok := s.(abortSignal); return ok }
func isPark(s any) bool {
	switch s.(type) {
	case parkSignal, continueSignal:
		return true
	}
	return false
}

// branchEmitCounts gives each branch its own copy of the emit count at the start of the parallel
// (nil under the SharedParallelEmitCount hook: every branch advances the shared count). r.mu is held.
func (c *Context) branchEmitCounts(branches int) (start map[string]int64, own []map[string]int64) {
	own = make([]map[string]int64, branches)
	if c.r.rt.cfg.Hooks.SharedParallelEmitCount {
		for i := range own {
			own[i] = c.emitN
		}
		return nil, own
	}
	start = maps.Clone(c.emitCounts())
	for i := range own {
		own[i] = maps.Clone(start)
	}
	return start, own
}

// join folds the branches into the parent's causal past once all have returned: their live work
// (a branch that itself runs a parallel sees its children's live work from here on) and their
// emits, added to the count the parallel started from. Both are the same whatever order the
// branches ran in (I-KERNEL-18).
func (c *Context) join(children []*Context, start map[string]int64, own []map[string]int64) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	for _, ch := range children {
		if ch != nil && ch.branchLive {
			c.branchLive = true
		}
	}
	if start == nil {
		return
	}
	counts := c.emitCounts()
	for _, b := range own {
		for d, n := range b {
			counts[d] += n - start[d]
		}
	}
}
