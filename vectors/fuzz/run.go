package fuzz

import (
	"context"
	"encoding/json"
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
	// ShrinkBudget bounds the fold pairs the shrinker may ask for; default 4 000.
	ShrinkBudget int
	// Timeout bounds the wait for one answer; default 10s. A fold that does not answer in time
	// disagrees (and vectors.Process restarts it).
	Timeout time.Duration
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
	Logs    int      // logs compared
	Finding *Finding // the first disagreement, shrunk; nil when the folds agreed on every log
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

// Run compares ref and under on cfg.Count generated logs and shrinks the first disagreement. An
// error is a failure of the run itself (a cancelled context); a fold under test that crashes or
// hangs is a disagreement like any other (its answer is the error).
func Run(ctx context.Context, cfg Config, ref, under vectors.Folder) (Result, error) {
	cfg = cfg.withDefaults()
	var res Result
	for i := 0; i < cfg.Count; i++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		seed := cfg.Seed + uint64(i)
		p := cfg.ProfileOf(seed)
		c := Generate(seed, p)
		res.Logs++
		want, got, same := compare(ctx, cfg.Timeout, ref, under, c)
		if cfg.Progress != nil && res.Logs%1000 == 0 {
			fmt.Fprintf(cfg.Progress, "fuzz: %d/%d logs agree\n", res.Logs, cfg.Count)
		}
		if same {
			continue
		}
		f := &Finding{Seed: seed, Profile: p, Original: c, Want: want, Got: got}
		budget := cfg.ShrinkBudget
		f.Minimal = Shrink(c, func(c Case) bool {
			if budget <= 0 || ctx.Err() != nil {
				return false
			}
			budget--
			_, _, same := compare(ctx, cfg.Timeout, ref, under, c)
			return !same
		})
		f.Shrinks = cfg.ShrinkBudget - budget
		f.Want, f.Got, _ = compare(ctx, cfg.Timeout, ref, under, f.Minimal)
		res.Finding = f
		return res, nil
	}
	return res, nil
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
// kind. No answer (a timeout, a crash) is an answer of its own that never agrees.
func compare(ctx context.Context, timeout time.Duration, ref, under vectors.Folder, c Case) (want, got vectors.Response, same bool) {
	req := c.Request("fuzz")
	ask := func(f vectors.Folder) (vectors.Response, error) {
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return f.Answer(actx, req)
	}
	want, err := ask(ref)
	if err != nil {
		want = vectors.Response{ID: req.ID, Error: "no answer", Message: err.Error()}
	}
	got, err = ask(under)
	if err != nil {
		return want, vectors.Response{ID: req.ID, Error: "no answer", Message: err.Error()}, false
	}
	switch {
	case want.Output != nil && got.Output != nil:
		return want, got, *want.Output == *got.Output
	case want.Output == nil && got.Output == nil:
		return want, got, want.Error == got.Error
	}
	return want, got, false
}
