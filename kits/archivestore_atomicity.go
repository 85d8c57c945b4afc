package kits

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// archiveRaceRounds is how many races of five archivers asConcurrent runs: four missed an archive
// call that compares and then inserts over one yield (a natural window) on 3 of 600 runs while
// the other kits ran in the same process (docs/performance.md).
const archiveRaceRounds = 16

func asConcurrent(ctx context.Context, c *ArchiveStoreCase) error {
	for round := 0; round < archiveRaceRounds; round++ {
		c.Progress(round, archiveRaceRounds)
		x := c.ExecID("race")
		const n = 5
		batches := make([][]spi.Envelope, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := 0; i < n; i++ {
			batches[i] = batch(x, 0, 3, fmt.Sprintf("archiver%d", i))
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				errs[i] = c.Store.Append(ctx, x, batches[i])
			}(i)
		}
		close(gate)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				return c.Failf("Append", fmt.Sprintf("%d racing archivers of different envelopes at 0..2", n), "two winners", "exactly one")
			case err == nil:
				winner = i
			case !errors.Is(err, spi.ErrConflict):
				return c.Failf("Append", appendArgs(x, batches[i], spi.AppendOptions{})+" racing", err, "nil or a conflict")
			}
		}
		if winner < 0 {
			return c.Failf("Append", fmt.Sprintf("%d racing archivers", n), "no winner", "exactly one")
		}
		if err := expectArchive(ctx, c, x, batches[winner], fmt.Sprintf("racing archivers, %d won", winner)); err != nil {
			return err
		}
	}
	return nil
}

func asReadersWholeAppend(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("readers-append")
	const size, rounds = 6, 12
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		return archive(ctx, c, x, batch(x, int64(i*size), size, fmt.Sprintf("b%d", i)))
	}, func(_, i int, after bool) error {
		got, err := c.Store.Read(ctx, x)
		if err != nil {
			return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
		}
		why := wholeBatches(got, 0, size)
		if why == "" && after && len(got) != (i+1)*size {
			why = fmt.Sprintf("%d envelopes after call %d returned", len(got), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing archive appends of %d envelopes (", x, size), why, "whole calls only")
		}
		return nil
	})
}

func asReadersWholeReplace(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("readers-replace")
	const n, rounds = 24, 8
	if err := archive(ctx, c, x, batch(x, 0, n, "v0")); err != nil {
		return err
	}
	r := spi.SeqRange{From: 0, Through: n - 1}
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		if err := rs.ReplaceSegments(ctx, x, r, batch(x, 0, n, fmt.Sprintf("v%d", i+1))); err != nil {
			return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [0, %d], [seq 0..%d]", x, n-1, n-1), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		got, err := c.Store.Read(ctx, x)
		if err != nil {
			return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
		}
		why := wholeBatches(got, 0, n)
		switch {
		case why == "" && len(got) != n:
			why = fmt.Sprintf("%d envelopes", len(got))
		case why == "" && after && tagOf(got[0]) != fmt.Sprintf("v%d", i+1):
			why = fmt.Sprintf("version %s after the replacement by v%d returned", tagOf(got[0]), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing replaceSegments of the whole range [0, %d] (", x, n-1), why, fmt.Sprintf("%d envelopes of one version", n))
		}
		return nil
	})
}
