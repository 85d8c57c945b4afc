package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
)

// Config configures a run. Zero fields take the defaults.
type Config struct {
	Seed  uint64 // log i is generated from seed Seed+i
	Count int    // logs to compare; default 1 000
	// Profile pins the schema profile of every log; zero: log i uses the profile of its seed
	// (the seven profiles in turn), so a run covers every version's rules.
	Profile fold.Profile
	// ShrinkBudget bounds the fold pairs the shrinker may ask for per class; default 4 000.
	ShrinkBudget int
	// MaxClasses bounds the classes shrunk; disagreements of further classes are counted, not
	// shrunk (default 20).
	MaxClasses int
	// Timeout bounds the wait for one answer; default 10s. A fold under test that does not answer in
	// time has failed (Result.Failure), like one that crashes.
	Timeout time.Duration
	// Known are the classes to set aside (a ledger: Known.Reason says why).
	Known *Known
	// Progress, when set, gets a line every 1 000 logs.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Count <= 0 {
		c.Count = 1000
	}
	if c.ShrinkBudget <= 0 {
		c.ShrinkBudget = 4000
	}
	if c.MaxClasses <= 0 {
		c.MaxClasses = 20
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	return c
}

// ProfileOf is the profile log seed uses when the run does not pin one.
func (c Config) ProfileOf(seed uint64) fold.Profile {
	if c.Profile != (fold.Profile{}) {
		return c.Profile
	}
	ps := fold.Profiles()
	return ps[seed%uint64(len(ps))]
}

// Result is what a run found.
type Result struct {
	Logs int // logs compared
	// Disagreements counts the logs on which the folds disagreed, set-aside ones included.
	Disagreements int
	// Classes are the disagreements grouped by root cause, most logs first.
	Classes []*Class
	// Unshrunk counts disagreements past Config.MaxClasses: counted, not shrunk or classified.
	Unshrunk int
	// Failure, when set, is why the run stopped: the fold under test crashed, exited or did not
	// answer. That is the fold's failure, never a disagreement.
	Failure *Failure
}

// Open are the classes no ledger entry sets aside.
func (r Result) Open() []*Class {
	var out []*Class
	for _, c := range r.Classes {
		if c.Known == "" {
			out = append(out, c)
		}
	}
	return out
}

// Finding is a disagreement between the reference and the fold under test.
type Finding struct {
	Seed     uint64 // the seed of the log that disagreed (--seed Seed --count 1 reproduces it)
	Profile  fold.Profile
	Original Case // the generated log
	Minimal  Case // the shrunk log: it still disagrees, and no step of the shrinker keeps that
	// Want and Got are the reference's and the fold under test's answers to Minimal.
	Want, Got vectors.Response
	Shrinks   int // fold pairs the shrinker spent
}

// Failure is the fold under test failing to answer: it crashed, exited, broke the protocol or did
// not answer within the timeout. Err holds the process's error and the tail of its stderr.
type Failure struct {
	Seed    uint64
	Profile fold.Profile
	Err     error
}

// errForeign marks a fold under test that did not answer.
type errForeign struct{ err error }

func (e errForeign) Error() string { return e.err.Error() }
func (e errForeign) Unwrap() error { return e.err }

// Run compares ref and under on cfg.Count generated logs, all of them: disagreements are grouped by
// root cause (Class: the shrunk log's shape and the first differing path) and one representative
// per class is shrunk. A log is first grouped by the differing path of its own answers, so only
// the first log of each group costs a shrink. The run stops early only when the fold under test
// fails to answer (Result.Failure) or ctx ends (the error). The reference failing to answer is an
// error of the run.
func Run(ctx context.Context, cfg Config, ref, under vectors.Folder) (Result, error) {
	cfg = cfg.withDefaults()
	var res Result
	byPre := map[string]*Class{} // first log's differing path → its class
	byKey := map[string]*Class{}
	for i := 0; i < cfg.Count; i++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		seed := cfg.Seed + uint64(i)
		p := cfg.ProfileOf(seed)
		c := Generate(seed, p)
		res.Logs++
		want, got, same, err := compare(ctx, cfg.Timeout, ref, under, c)
		if cfg.Progress != nil && res.Logs%1000 == 0 {
			fmt.Fprintf(cfg.Progress, "fuzz: %d/%d logs, %d disagree in %d class(es)\n", res.Logs, cfg.Count, res.Disagreements, len(res.Classes))
		}
		if err != nil {
			return res.stop(seed, p, err)
		}
		if same {
			continue
		}
		res.Disagreements++
		pre := answerPath(want, got)
		if cl := byPre[pre]; cl != nil {
			cl.add(seed)
			continue
		}
		if len(byPre) >= cfg.MaxClasses {
			res.Unshrunk++
			continue
		}
		f, err := shrink(ctx, cfg, ref, under, seed, p, c)
		if err != nil {
			return res.stop(seed, p, err)
		}
		key := ClassKey(f.Minimal, f.Want, f.Got)
		cl := byKey[key]
		if cl == nil {
			cl = &Class{Key: key, Finding: f}
			cl.Known = cfg.Known.Lookup(key)
			byKey[key] = cl
			res.Classes = append(res.Classes, cl)
		}
		byPre[pre] = cl
		cl.add(seed)
	}
	sortClasses(res.Classes)
	return res, nil
}

// stop ends the run at log seed on err: a fold under test that did not answer is the run's
// Failure (the result, no error); anything else is an error of the run.
func (res Result) stop(seed uint64, p fold.Profile, err error) (Result, error) {
	sortClasses(res.Classes)
	var fe errForeign
	if errors.As(err, &fe) {
		res.Failure = &Failure{Seed: seed, Profile: p, Err: fe.err}
		return res, nil
	}
	return res, err
}

// shrink shrinks the disagreeing case c of seed to a minimal one.
func shrink(ctx context.Context, cfg Config, ref, under vectors.Folder, seed uint64, p fold.Profile, c Case) (*Finding, error) {
	f := &Finding{Seed: seed, Profile: p, Original: c}
	budget := cfg.ShrinkBudget
	var failed error
	f.Minimal = Shrink(c, func(c Case) bool {
		if budget <= 0 || ctx.Err() != nil || failed != nil {
			return false
		}
		budget--
		_, _, same, err := compare(ctx, cfg.Timeout, ref, under, c)
		if err != nil {
			failed = err
			return false
		}
		return !same
	})
	if failed != nil {
		return nil, failed
	}
	f.Shrinks = cfg.ShrinkBudget - budget
	var err error
	f.Want, f.Got, _, err = compare(ctx, cfg.Timeout, ref, under, f.Minimal)
	return f, err
}

// Request is the protocol request of a case.
func (c Case) Request(id string) vectors.Request {
	evs := c.Events
	if evs == nil {
		evs = []json.RawMessage{}
	}
	return vectors.Request{Kind: vectors.KindFold, ID: id, Profile: c.Profile, Snapshot: c.Snapshot, Events: &evs}
}

// compare asks both folds and reports whether they agree: the same output text, or the same error
// kind. A fold under test that gives no answer (a crash, an exit, a protocol breach, a timeout) is
// an errForeign, never a disagreement.
func compare(ctx context.Context, timeout time.Duration, ref, under vectors.Folder, c Case) (want, got vectors.Response, same bool, err error) {
	req := c.Request("fuzz")
	ask := func(f vectors.Folder) (vectors.Response, error) {
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return f.Answer(actx, req)
	}
	if want, err = ask(ref); err != nil {
		return want, got, false, fmt.Errorf("the reference fold did not answer: %w", err)
	}
	if got, err = ask(under); err != nil {
		if ctx.Err() != nil {
			return want, got, false, ctx.Err()
		}
		return want, got, false, errForeign{err}
	}
	switch {
	case want.Output != nil && got.Output != nil:
		return want, got, *want.Output == *got.Output, nil
	case want.Output == nil && got.Output == nil:
		return want, got, want.Error == got.Error, nil
	}
	return want, got, false, nil
}
