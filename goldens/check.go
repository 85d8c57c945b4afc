package goldens

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/jsondiff"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// CheckOptions tune Check.
type CheckOptions struct {
	// Run selects goldens by name (nil = all).
	Run *regexp.Regexp
	// Config modifies the kernel under test (a mutant's Hooks); nil = the reference kernel.
	Config func(*kernel.Config)
	// Variants are the G2 variants (default G2Variants()); NoG2 skips them.
	Variants []Variant
	NoG2     bool
	// Harness is the harness version (recorded.json is compared without it).
	Harness string
	// Shard, when set, checks only the goldens whose name falls in it (internal/shard).
	Shard shard.Shard
}

// Problem is one way a golden failed.
type Problem struct {
	// Stage: "unrecorded", "recorded", "rerun", "results", "fixture", "g2/<variant>" or "error".
	Stage      string      `json:"stage"`
	Message    string      `json:"message"`
	Divergence *Divergence `json:"divergence,omitempty"`
}

// Result is the verdict on one golden.
type Result struct {
	Name     string    `json:"name"`
	Clauses  []string  `json:"clauses"`
	Verdict  string    `json:"verdict"` // pass or fail
	Problems []Problem `json:"problems,omitempty"`
	Millis   int64     `json:"ms"`
}

// Failed reports whether the result is a fail.
func (r Result) Failed() bool { return r.Verdict != "pass" }

// String renders the first problem in the failure grammar: golden, clauses, first divergence.
func (r Result) String() string {
	if !r.Failed() {
		return "golden " + r.Name + ": pass"
	}
	p := r.Problems[0]
	return fmt.Sprintf("goldens/%s [%s]: %s: %s", r.Name, strings.Join(r.Clauses, " "), p.Stage, p.Message)
}

// Check re-runs each golden on the kernel and compares: a fresh run under the golden's driver
// must write the recorded log and state byte for byte and return the recorded action results;
// ReplayAsFixture over the recorded log must append nothing; and each G2 variant's run must write
// the same log. Goldens are independent: all are checked, each with its own verdict.
func Check(ctx context.Context, corpus []*Golden, o CheckOptions) []Result {
	variants := o.Variants
	if variants == nil && !o.NoG2 {
		variants = G2Variants()
	}
	var out []Result
	for _, g := range corpus {
		if o.Run != nil && !o.Run.MatchString(g.Name) || !o.Shard.Includes(g.Name) {
			continue
		}
		t0 := time.Now()
		r := Result{Name: g.Name, Clauses: g.Driver.Clauses, Verdict: "pass"}
		r.Problems = checkOne(ctx, g, o, variants)
		if len(r.Problems) > 0 {
			r.Verdict = "fail"
		}
		r.Millis = time.Since(t0).Milliseconds()
		out = append(out, r)
	}
	return out
}

func checkOne(ctx context.Context, g *Golden, o CheckOptions, variants []Variant) []Problem {
	if g.Unrecorded {
		return []Problem{{Stage: "unrecorded", Message: "no recorded log: run `loom-conform goldens record " + g.Name + "`"}}
	}
	var ps []Problem
	rec, err := Record(ctx, g, o.Harness, flowscript.RunOptions{Config: o.Config})
	if err != nil {
		return []Problem{{Stage: "error", Message: err.Error()}}
	}
	if dv := DiffRuns(g.Log, rec.Run.Log, g.State, rec.State, DiffOptions{Strict: true}); dv != nil {
		ps = append(ps, Problem{Stage: "rerun", Message: dv.String(), Divergence: dv})
	}
	if err := CheckRecordedVersions(g.Recorded, rec.Recorded.Profile); err != nil {
		ps = append(ps, Problem{Stage: "recorded", Message: RecordedFile + ": " + err.Error()})
	}
	if !cmp.Equal(g.Recorded.Results, rec.Recorded.Results) {
		ps = append(ps, Problem{Stage: "results", Message: "driver action results (-want +got):\n" + jsondiff.Diff(g.Recorded.Results, rec.Recorded.Results)})
	}
	if !cmp.Equal(g.Recorded.Warnings, rec.Recorded.Warnings) {
		ps = append(ps, Problem{Stage: "results", Message: "runtime warnings (-want +got):\n" + jsondiff.Diff(g.Recorded.Warnings, rec.Recorded.Warnings)})
	}
	if _, err := ReplayAsFixture(ctx, g.Script, g.Driver, g.Log, o.Config); err != nil {
		p := Problem{Stage: "fixture", Message: err.Error()}
		if fe, ok := err.(*FixtureError); ok {
			p.Divergence = fe.Divergence
		}
		ps = append(ps, p)
	}
	for _, v := range variants {
		if v.Applies != nil && !v.Applies(g) {
			continue
		}
		mod := func(c *kernel.Config) {
			if v.Config != nil {
				v.Config(c)
			}
			if o.Config != nil {
				o.Config(c)
			}
		}
		vr, err := Record(ctx, g, o.Harness, flowscript.RunOptions{Config: mod, Mount: v.Mount})
		if err != nil {
			ps = append(ps, Problem{Stage: "g2/" + v.Name, Message: err.Error()})
			continue
		}
		if dv := DiffRuns(g.Log, vr.Run.Log, g.State, vr.State, DiffOptions{Strict: true}); dv != nil {
			ps = append(ps, Problem{Stage: "g2/" + v.Name, Message: dv.String(), Divergence: dv})
		}
	}
	return ps
}
