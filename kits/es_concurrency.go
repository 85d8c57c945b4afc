package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/loom-kernel/loom-conform/spi"
)

func esConcurrentOneWins(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("race")
	const writers, rounds, size = 6, 8, 4
	var want []spi.Envelope
	head := int64(0)
	for r := 0; r < rounds; r++ {
		results := make([]error, writers)
		batches := make([][]spi.Envelope, writers)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for w := 0; w < writers; w++ {
			batches[w] = batch(x, head, size, fmt.Sprintf("r%dw%d", r, w))
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				results[w] = c.Store.Append(ctx, x, batches[w], spi.AppendOptions{})
			}(w)
		}
		close(gate)
		wg.Wait()
		winner := -1
		for w, err := range results {
			switch {
			case err == nil && winner >= 0:
				return c.Failf("Append", fmt.Sprintf("%d racing writers at seq %d", writers, head), "two winners", "exactly one winner")
			case err == nil:
				winner = w
			case !errors.Is(err, spi.ErrConflict):
				return c.Failf("Append", appendArgs(x, batches[w], spi.AppendOptions{})+" racing", err, "nil or a conflict")
			}
		}
		if winner < 0 {
			return c.Failf("Append", fmt.Sprintf("%d racing writers at seq %d", writers, head), "no winner", "exactly one winner")
		}
		want = append(want, batches[winner]...)
		head += size
		if err := expectLog(ctx, c, x, want, fmt.Sprintf("race round %d, writer %d won", r, winner)); err != nil {
			return err
		}
	}
	return nil
}

func esCancelNotTorn(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("cancel")
	var want []spi.Envelope
	head := int64(0)
	const size = 120
	for i := 0; i < 25; i++ {
		// Every fourth try starts already cancelled, so a store that commits first and checks
		// the context afterwards shows on every machine, however fast.
		delay := time.Duration(c.Rand.Intn(1500)) * time.Microsecond
		if i%4 == 0 {
			delay = 0
		}
		b := batch(x, head, size, fmt.Sprintf("try%d", i))
		cctx, cancel := context.WithTimeout(ctx, delay)
		err := c.Store.Append(cctx, x, b, spi.AppendOptions{})
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		got, rerr := readAll(ctx, c, x)
		if rerr != nil {
			return rerr
		}
		switch {
		case len(got) == len(want):
		case len(got) == len(want)+size:
			// Stored: the append must say so. A store that commits and then reports the
			// cancellation makes its caller retry a write that landed (I-STORE-2).
			if err != nil {
				return c.Failf("Append", appendArgs(x, b, spi.AppendOptions{})+fmt.Sprintf(" cancelled after %s", delay),
					fmt.Sprintf("error %q but the batch is stored", err.Error()), "nil when the batch is stored (report the real outcome)")
			}
			want = append(want, b...)
			head += size
		default:
			return c.Failf("Append", appendArgs(x, b, spi.AppendOptions{})+fmt.Sprintf(" cancelled after %s", delay),
				fmt.Sprintf("%d envelopes stored (append returned %v)", len(got), err),
				fmt.Sprintf("%d or %d (whole batch or nothing)", len(want), len(want)+size))
		}
		if err == nil && len(got) != len(want) {
			return c.Failf("Append", appendArgs(x, b, spi.AppendOptions{}), "nil but the batch is not stored", "an error, or the batch stored")
		}
		if d := c.Diff("Read", fmt.Sprintf("%q) after (cancelled append %d", x, i), nonNil(want), nonNil(got), envCmp); d != nil {
			return d
		}
	}
	// Nothing lands after its call returned: the log is still what the last read saw.
	time.Sleep(50 * time.Millisecond)
	if err := expectLog(ctx, c, x, want, "every cancelled append returned, and 50ms more"); err != nil {
		return err
	}
	// The store is still usable.
	return appendOK(ctx, c, x, batch(x, head, 1, "after"), spi.AppendOptions{})
}

// Linearizability: the model is the log of one execution as a string of tags.

type linInput struct {
	read bool
	seq  int
	n    int
	tag  string
}

type linOutput struct {
	ok  bool   // append: true on success, false on conflict
	log string // read: the tags
}

func linModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			st, in, out := state.(string), input.(linInput), output.(linOutput)
			tags := splitTags(st)
			if in.read {
				return out.log == st, st
			}
			if in.seq == len(tags) {
				if !out.ok {
					return false, st
				}
				for i := 0; i < in.n; i++ {
					tags = append(tags, in.tag)
				}
				return true, strings.Join(tags, ",")
			}
			return !out.ok, st
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(linInput), output.(linOutput)
			if in.read {
				return fmt.Sprintf("read() -> [%s]", out.log)
			}
			return fmt.Sprintf("append(seq %d, %d×%s) -> ok=%v", in.seq, in.n, in.tag, out.ok)
		},
	}
}

func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func tagsOf(envs []spi.Envelope) string {
	tags := make([]string, len(envs))
	for i, e := range envs {
		var p struct {
			Tag string `json:"tag"`
		}
		_ = json.Unmarshal(e.Payload, &p)
		tags[i] = p.Tag
	}
	return strings.Join(tags, ",")
}

func esLinearizable(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("lin")
	const clients, opsPer = 4, 14
	start := time.Now()
	var mu sync.Mutex
	var history []porcupine.Operation
	var firstErr error
	seeds := make([]int64, clients)
	for i := range seeds {
		seeds[i] = c.Rand.Int63()
	}
	var wg sync.WaitGroup
	for cl := 0; cl < clients; cl++ {
		wg.Add(1)
		go func(cl int) {
			defer wg.Done()
			defer c.Recover()
			rnd := newRand(seeds[cl])
			known := 0
			for op := 0; op < opsPer; op++ {
				var in linInput
				if rnd.Intn(10) < 3 {
					in = linInput{read: true}
				} else {
					in = linInput{seq: known, n: 1 + rnd.Intn(3), tag: fmt.Sprintf("c%do%d", cl, op)}
				}
				call := time.Since(start).Nanoseconds()
				var out linOutput
				if in.read {
					got, err := c.Store.Read(ctx, x)
					if err != nil {
						mu.Lock()
						firstErr = errors.Join(firstErr, c.Failf("Read", fmt.Sprintf("%q", x), err, "nil"))
						mu.Unlock()
						return
					}
					out.log = tagsOf(got)
					known = len(got)
				} else {
					b := batch(x, int64(in.seq), in.n, in.tag)
					err := c.Store.Append(ctx, x, b, spi.AppendOptions{})
					switch {
					case err == nil:
						out.ok = true
						known = in.seq + in.n
					case errors.Is(err, spi.ErrConflict):
						known++ // someone wrote there; guess further next time
					default:
						mu.Lock()
						firstErr = errors.Join(firstErr, c.Failf("Append", appendArgs(x, b, spi.AppendOptions{}), err, "nil or a conflict"))
						mu.Unlock()
						return
					}
				}
				ret := time.Since(start).Nanoseconds()
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: cl, Input: in, Output: out, Call: call, Return: ret})
				mu.Unlock()
			}
		}(cl)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	res, _ := porcupine.CheckOperationsVerbose(linModel(), history, 10*time.Second)
	switch res {
	case porcupine.Ok:
		return nil
	case porcupine.Illegal:
		return notLinearizable(c.Failf("CheckOperations", fmt.Sprintf("%d ops of %d clients on %q", len(history), clients, x), "not linearizable", "a linearizable history"),
			linModel(), history, func(op porcupine.Operation) bool { return op.Input.(linInput).read || !op.Output.(linOutput).ok })
	default:
		return c.Unknown("the linearizability checker timed out on a history of %d ops (no verdict)", len(history))
	}
}

func nonNil(e []spi.Envelope) []spi.Envelope {
	if e == nil {
		return []spi.Envelope{}
	}
	return e
}
