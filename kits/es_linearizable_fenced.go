package kits

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/loom-kernel/loom-conform/spi"
)

// The fenced model: the log of one execution and its current fence token. Workers acquire fences
// and append under them; a worker whose token was superseded is a zombie.

type fState struct {
	log   string
	fence int64
}

type fInput struct {
	kind  string // "acquire", "append", "read"
	seq   int
	n     int
	tag   string
	token int64
}

type fOutput struct {
	token   int64  // acquire
	outcome string // append: "ok", "conflict", "fenced"
	log     string // read
}

func fencedModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return fState{} },
		Step: func(state, input, output any) (bool, any) {
			st, in, out := state.(fState), input.(fInput), output.(fOutput)
			switch in.kind {
			case "read":
				return out.log == st.log, st
			case "acquire":
				if out.token <= st.fence {
					return false, st
				}
				return true, fState{log: st.log, fence: out.token}
			}
			tags := splitTags(st.log)
			staleFence, staleSeq := in.token != st.fence, in.seq != len(tags)
			switch {
			case staleFence && staleSeq:
				return out.outcome == "fenced" || out.outcome == "conflict", st
			case staleFence:
				return out.outcome == "fenced", st
			case staleSeq:
				return out.outcome == "conflict", st
			}
			if out.outcome != "ok" {
				return false, st
			}
			for i := 0; i < in.n; i++ {
				tags = append(tags, in.tag)
			}
			return true, fState{log: strings.Join(tags, ","), fence: st.fence}
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(fInput), output.(fOutput)
			switch in.kind {
			case "read":
				return fmt.Sprintf("read() -> [%s]", out.log)
			case "acquire":
				return fmt.Sprintf("acquireFence() -> %d", out.token)
			}
			return fmt.Sprintf("append(seq %d, %d×%s, fence %d) -> %s", in.seq, in.n, in.tag, in.token, out.outcome)
		},
	}
}

func esLinearizableFenced(ctx context.Context, c *EventStoreCase) error {
	fencer := c.Store.(spi.Fencer)
	x := c.ExecID("lin-fenced")
	const workers, opsPer = 4, 20
	start := time.Now()
	var mu sync.Mutex
	var history []porcupine.Operation
	var failure error
	seeds := make([]int64, workers)
	for i := range seeds {
		seeds[i] = c.Rand.Int63()
	}
	record := func(cl int, in fInput, out fOutput, call int64) {
		ret := time.Since(start).Nanoseconds()
		mu.Lock()
		history = append(history, porcupine.Operation{ClientId: cl, Input: in, Output: out, Call: call, Return: ret})
		mu.Unlock()
	}
	fail := func(err error) {
		mu.Lock()
		failure = errors.Join(failure, err)
		mu.Unlock()
	}
	// Workers take one step per round, all at once, so a worker's stale token meets other workers'
	// newer ones (a goroutine left alone would finish before the next starts).
	rnds := make([]*rand.Rand, workers)
	tokens := make([]int64, workers)
	knowns := make([]int, workers)
	for w := range rnds {
		rnds[w] = newRand(seeds[w])
	}
	for op := 0; op < opsPer; op++ {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer c.Recover()
				rnd, token, known := rnds[w], tokens[w], knowns[w]
				defer func() { tokens[w], knowns[w] = token, known }()
				call := time.Since(start).Nanoseconds()
				switch r := rnd.Intn(10); {
				case token == 0 || r < 3:
					f, err := fencer.AcquireFence(ctx, x)
					if err != nil {
						fail(c.Failf("AcquireFence", fmt.Sprintf("%q", x), err, "nil"))
						return
					}
					token = f.Token
					record(w, fInput{kind: "acquire"}, fOutput{token: f.Token}, call)
				case r < 5:
					got, err := c.Store.Read(ctx, x)
					if err != nil {
						fail(c.Failf("Read", fmt.Sprintf("%q", x), err, "nil"))
						return
					}
					known = len(got)
					record(w, fInput{kind: "read"}, fOutput{log: tagsOf(got)}, call)
				default:
					in := fInput{kind: "append", seq: known, n: 1 + rnd.Intn(2), tag: fmt.Sprintf("w%do%d", w, op), token: token}
					b := batch(x, int64(in.seq), in.n, in.tag)
					err := c.Store.Append(ctx, x, b, spi.AppendOptions{Fence: token})
					out := fOutput{}
					switch {
					case err == nil:
						out.outcome = "ok"
						known = in.seq + in.n
					case errors.Is(err, spi.ErrFenced):
						out.outcome = "fenced"
					case errors.Is(err, spi.ErrConflict):
						out.outcome = "conflict"
						known++
					default:
						fail(c.Failf("Append", appendArgs(x, b, spi.AppendOptions{Fence: token}), err, "nil, conflict or fenced"))
						return
					}
					record(w, in, out, call)
				}
			}(w)
		}
		wg.Wait()
	}
	if failure != nil {
		return failure
	}
	res, _ := porcupine.CheckOperationsVerbose(fencedModel(), history, 10*time.Second)
	switch res {
	case porcupine.Ok:
		return nil
	case porcupine.Illegal:
		return notLinearizable(c.Failf("CheckOperations", fmt.Sprintf("%d ops of %d fenced workers on %q", len(history), workers, x),
			"not linearizable (a stale fence wrote, a token went back, or a write was lost)", "a linearizable history"),
			fencedModel(), history, func(op porcupine.Operation) bool {
				in := op.Input.(fInput)
				return in.kind == "read" || in.kind == "append" && op.Output.(fOutput).outcome != "ok"
			})
	default:
		return c.Unknown("the linearizability checker timed out on a history of %d ops (no verdict)", len(history))
	}
}
