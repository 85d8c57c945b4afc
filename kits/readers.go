package kits

import (
	"context"
	"sync"
	"sync/atomic"
)

// readersRace is the lockstep behind the "readers see whole writes" checks (I-STORE-31,
// I-PLUGIN-13). The check's work is rounds writes; in each round every reader has read once
// before the write starts (so readers are reading when it does), keeps reading the written item
// while the write runs, and reads once more after it returned (after = true), so each round sees
// the state before, during and after one write. How many reads land inside a write depends on the
// machine (at most readsPerWrite per reader); that every round overlaps its write and ends after it
// does not. A window that stays open for one read is seen; a window shorter than one read is beyond
// any black-box check (the broken stores of kits/broken hold their window open until a reader has
// looked).
//
// read returns a violation or nil; write (given a context that ends when a reader has found a
// violation) returns a violation or nil. The first violation ends the check; Progress counts the
// rounds done.
func readersRace[T any](ctx context.Context, c *Case[T], readers, rounds int, write func(ctx context.Context, round int) error, read func(reader, round int, after bool) error) error {
	for round := 0; round < rounds; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := raceRound(ctx, c, readers, round, write, read); err != nil {
			return err
		}
		c.Progress(round+1, rounds)
	}
	return nil
}

// readsPerWrite bounds how often one reader reads while one write runs; past it the reader waits
// for the write to return and reads once more. A window that stays open for one read is met long
// before it; the bound keeps readers from starving the write on a loaded machine.
const readsPerWrite = 32

// raceRound is one round: each reader reads once (before), then, once the write has started,
// reads until it returned or readsPerWrite times (during), then once more after it returned.
func raceRound[T any](ctx context.Context, c *Case[T], readers, round int, write func(context.Context, int) error, read func(int, int, bool) error) error {
	// A reader's violation ends the round: the write's context is cancelled so it need not finish.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var done atomic.Bool
	started, returned := make(chan struct{}), make(chan struct{})
	errs := make([]error, readers)
	ready := make(chan struct{}, readers)
	wait := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Recover()
			signalled := false
			defer func() { // also when the target panicked in the first read
				if !signalled {
					ready <- struct{}{}
				}
			}()
			fail := func(err error) bool {
				if err != nil {
					errs[r] = err
					cancel()
				}
				return err != nil
			}
			err := read(r, round, false)
			signalled = true
			ready <- struct{}{}
			if fail(err) || !wait(started) {
				return
			}
			for n := 0; n < readsPerWrite && !done.Load(); n++ {
				if fail(read(r, round, false)) {
					return
				}
			}
			if wait(returned) {
				fail(read(r, round, true))
			}
		}()
	}
	for r := 0; r < readers; r++ {
		if !wait(ready) {
			// A reader is stuck in the target: leave it (the runner gives up on the check).
			return ctx.Err()
		}
	}
	close(started)
	werr := func() error {
		defer c.Recover()
		return write(wctx, round)
	}()
	done.Store(true)
	close(returned)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if werr != nil {
		return werr
	}
	return ctx.Err()
}
