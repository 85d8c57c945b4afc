package flowscript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Options tune the in-process interpreter.
type Options struct {
	// SerialBranches runs the branches of a parallel one after another, in branch order (each
	// still in its own branch Context, so the kernel treats them as parallel), which makes the log
	// a function of the script alone. Goldens are recorded and checked this way.
	SerialBranches bool
	// Observe, when set, is told what the flow code sees as it sees it (a property kit's trace):
	// each answered call, each decider that runs live, and the start and end of each parallel.
	// It is called from the goroutine of the scope concerned, so branches call it concurrently.
	Observe func(Observation)
}

// Observation kinds.
const (
	ObsAnswer        = "answer"         // a call was answered (Answer)
	ObsDecider       = "decider"        // a decide statement's decider ran (the log did not answer it)
	ObsParallelBegin = "parallel-begin" // a parallel is about to fork
	ObsParallelEnd   = "parallel-end"   // a parallel joined (Answer)
)

// Observation is one thing flow code saw: Kind, the statement and its path, Branch (the 1-based
// index of the innermost parallel branch the statement runs in, 0 outside any) and, for
// ObsAnswer and ObsParallelEnd, the answer.
type Observation struct {
	Kind   string
	Path   string
	Stmt   *Stmt
	Branch int
	Answer Answer
}

// Def returns the script as a kernel flow definition (ID, Fn, CodeHash).
func Def(s *Script, opts Options) kernel.FlowDef {
	return kernel.FlowDef{ID: s.ID, Fn: Flow(s, opts), CodeHash: s.CodeHash}
}

// Flow turns a script into kernel flow code: it steps a Machine and makes each call through the
// Context. A scope that ends in ActFail fails the flow with the failure's message.
func Flow(s *Script, opts Options) kernel.Flow {
	return func(c *kernel.Context, input json.RawMessage) (any, error) {
		out, f, err := runScope(c, TopScope(s, input), opts, 0)
		if err != nil {
			return nil, err
		}
		if f != nil {
			return nil, errors.New(f.Message)
		}
		return out, nil
	}
}

// runScope runs a scope to its end (branch: see Observation). A non-nil error is a script bug
// (an unresolvable reference).
func runScope(c *kernel.Context, sc Scope, opts Options, branch int) (json.RawMessage, *Failure, error) {
	m := NewMachine(sc)
	observe := func(kind string, a Action, ans Answer) {
		if opts.Observe != nil {
			opts.Observe(Observation{Kind: kind, Path: a.Path, Stmt: a.Stmt, Branch: branch, Answer: ans})
		}
	}
	for {
		a, err := m.Action()
		if err != nil {
			return nil, nil, err
		}
		var ans Answer
		switch a.Kind {
		case ActDone:
			return a.Output, nil, nil
		case ActFail:
			return nil, a.Failure, nil
		case ActParallel:
			observe(ObsParallelBegin, a, Answer{})
			ans = parallel(c, a, opts)
			observe(ObsParallelEnd, a, ans)
		case ActCall:
			ans = call(c, a, func() { observe(ObsDecider, a, Answer{}) })
			observe(ObsAnswer, a, ans)
		}
		if err := m.Answer(ans); err != nil {
			return nil, nil, err
		}
	}
}

func parallel(c *kernel.Context, a Action, opts Options) Answer {
	n := len(a.Branches)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	fails := make([]*Failure, n)
	branches := make([]kernel.Branch, n)
	for i, sc := range a.Branches {
		branches[i] = func(bc *kernel.Context) (any, error) {
			defer close(done[i])
			if opts.SerialBranches && i > 0 {
				<-done[i-1]
			}
			out, f, err := runScope(bc, sc, opts, i+1)
			if err != nil {
				return nil, err
			}
			if f != nil {
				fails[i] = f
				return nil, errors.New(f.Message)
			}
			return out, nil
		}
	}
	outs, err := c.Parallel(branches...)
	if err != nil {
		var be *kernel.BranchError
		if errors.As(err, &be) {
			idx := be.Index
			cause := fails[idx]
			if cause == nil {
				cause = FailureOf(be.Err)
			}
			return Answer{Failure: &Failure{Kind: "branch", Message: err.Error(), Branch: &idx, Cause: cause}}
		}
		return Answer{Failure: FailureOf(err)}
	}
	return Answer{Value: mustJSON(outs)}
}

// Call makes one ActCall through the Context and returns the kernel's answer. Parks, aborts and
// continueAsNew unwind the calling goroutine (kernel panics) and never return here.
func Call(c *kernel.Context, a Action) Answer { return call(c, a, nil) }

// call is Call, telling decided (when not nil) that a decider runs.
func call(c *kernel.Context, a Action, decided func()) Answer {
	st := a.Stmt
	var args struct {
		Input   json.RawMessage `json:"input"`
		Choice  json.RawMessage `json:"choice"`
		Context json.RawMessage `json:"context"`
		Policy  json.RawMessage `json:"policy"`
	}
	_ = json.Unmarshal(a.Args, &args)
	switch st.Op {
	case "execute":
		t := kernel.Task{ID: st.ID, Kind: st.Kind, ToolID: st.Tool, AtMostOnce: st.AtMostOnce,
			Timeout: time.Duration(st.TimeoutMs) * time.Millisecond}
		if st.Errors != nil { // declared, even empty (I-KERNEL-12)
			t.Errors = map[string]kernel.PayloadSchema{}
			for _, ch := range st.Errors {
				t.Errors[ch] = kernel.AnyPayload
			}
		}
		var in any
		if args.Input != nil {
			in = args.Input
		}
		return answerOf(c.Execute(t, in))
	case "decide":
		var opts []kernel.DecideOption
		if args.Context != nil {
			opts = append(opts, kernel.WithContext(args.Context))
		}
		if args.Policy != nil {
			opts = append(opts, kernel.WithPolicy(args.Policy))
		}
		choice, fails := args.Choice, st.Fails
		return answerOf(c.Decide(st.ID, func(context.Context) (any, error) {
			if decided != nil {
				decided()
			}
			if fails {
				return nil, errors.New(DeciderThrows)
			}
			return choice, nil
		}, opts...))
	case "emit", "stream", "ui":
		if ans, ok := nonJSONEmit(c, st, a.Args); ok {
			return ans
		}
	}
	return answerOf(c.Call(st.Op, a.Args))
}

// nonJSONEmit makes an emit, stream or ui call whose payload literal holds a {"$float": ...}
// number through the Go API, with the number in place (ok = false: the payload is plain JSON).
// Only a marker written in the statement counts, not one a reference brings in.
func nonJSONEmit(c *kernel.Context, st *Stmt, args json.RawMessage) (Answer, bool) {
	if _, found, _ := NonJSON(st.Payload); !found {
		return Answer{}, false
	}
	var a struct {
		EventType string          `json:"eventType"`
		Payload   json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(args, &a) != nil || a.Payload == nil {
		return Answer{}, false
	}
	v, found, err := NonJSON(a.Payload)
	if !found || err != nil {
		return Answer{}, false
	}
	emit := map[string]func(string, any) error{"emit": c.Emit, "stream": c.Stream, "ui": c.UI}[st.Op]
	return answerOf(nil, emit(a.EventType, v)), true
}

func answerOf(v json.RawMessage, err error) Answer {
	if err != nil {
		return Answer{Failure: FailureOf(err)}
	}
	if v == nil {
		v = json.RawMessage("null")
	}
	return Answer{Value: v}
}

// FailureOf classifies a kernel error as a flow script sees it. The message of an untyped or
// timed-out failure is the one the log records (the effect's), so a replay that serves the failure
// answers the same; a cancelled step's is "step <id> cancelled".
func FailureOf(err error) *Failure {
	var tf *kernel.TypedFailure
	var sf *kernel.StepFailedError
	var sc *kernel.StepCancelledError
	var qe *kernel.QuotaExceededError
	var de *kernel.DeciderError
	switch {
	case errors.As(err, &qe):
		return &Failure{Kind: "quota", Message: err.Error()}
	case errors.As(err, &tf):
		return &Failure{Kind: "typed", Channel: tf.Channel, Payload: tf.RawPayload(), Message: err.Error()}
	case errors.As(err, &sf):
		// the effect's own message, which the log records: a replay serves the same one
		if sf.Timeout {
			return &Failure{Kind: "timeout", Message: sf.Message}
		}
		return &Failure{Kind: "untyped", Message: sf.Message}
	case errors.As(err, &sc):
		return &Failure{Kind: "cancelled", Message: "step " + sc.StepID + " cancelled"}
	case errors.As(err, &de):
		return &Failure{Kind: "decider", Message: err.Error()}
	}
	return &Failure{Kind: "syscall", Message: fmt.Sprint(err)}
}
