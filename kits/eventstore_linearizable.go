package kits

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/loom-kernel/loom-conform/spi"
)

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

// The fenced model: the log of one execution, its current fence token and every token issued so
// far. Workers acquire fences and append under them; a worker whose token was superseded is a
// zombie. A new token must be one never issued before (I-STORE-6); that tokens increase is a
// choice (I-STORE-100) eventstore/fence-monotonic asks about, not this model.

type fState struct {
	log    string
	fence  int64
	issued string // ",t1,t2,…," in issue order
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
				mark := "," + strconv.FormatInt(out.token, 10) + ","
				if out.token == 0 || strings.Contains(","+st.issued, mark) {
					return false, st
				}
				return true, fState{log: st.log, fence: out.token, issued: st.issued + mark[1:]}
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
			return true, fState{log: strings.Join(tags, ","), fence: st.fence, issued: st.issued}
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
			"not linearizable (a stale fence wrote, a token was issued twice, or a write was lost)", "a linearizable history"),
			fencedModel(), history, func(op porcupine.Operation) bool {
				in := op.Input.(fInput)
				return in.kind == "read" || in.kind == "append" && op.Output.(fOutput).outcome != "ok"
			})
	default:
		return c.Unknown("the linearizability checker timed out on a history of %d ops (no verdict)", len(history))
	}
}
