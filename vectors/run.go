package vectors

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/jsondiff"
	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
)

// Verdict is the outcome of one vector.
type Verdict string

const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Unknown Verdict = "unknown" // no answer: timeout, a crashed process, an out-of-protocol line
)

// Config tunes a run. The zero value is usable: defaults are filled in by withDefaults.
type Config struct {
	// Timeout bounds the wait for one vector's answer (default 10s).
	Timeout time.Duration
	// Profile, when set, selects the fold vectors of that profile only (canonical and digest
	// vectors do not depend on a profile and always run).
	Profile string
	// Run, when set, selects the vectors whose id it matches (the others are excluded).
	Run *regexp.Regexp
	// DeadAfter is how many vectors in a row may go unanswered before the fold is pinged; when the
	// ping goes unanswered too, every remaining vector is unknown at once (default 2, I-CERT-8).
	DeadAfter int
	// Ledger lists the known failures (nil = none).
	Ledger *Ledger
	// Now is the clock for ledger expiry (default time.Now).
	Now func() time.Time
	// Progress, when set, receives a line per vector that does not pass and a running count.
	Progress io.Writer
	// ProgressEvery is how many vectors pass between running counts (default 200).
	ProgressEvery int
	// Shard, when set, runs only the vectors whose id falls in it (internal/shard); the others are
	// neither run nor counted as excluded, so the shards' reports merge into one run (MergeReports).
	Shard shard.Shard
	// Target names the fold under test in the report ("reference" or the --exec command), so
	// that reports of different folds refuse to merge.
	Target string
	// Strict holds the fold to recommendations: a failure whose failing assertion cites only
	// choices blocks the run too (--strict).
	Strict bool
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 200
	}
	if c.DeadAfter <= 0 {
		c.DeadAfter = 2
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Result is the verdict of one vector.
type Result struct {
	ID      string   `json:"id"`
	Kind    Kind     `json:"kind"`
	File    string   `json:"file"`
	Clauses []string `json:"clauses"`
	Verdict Verdict  `json:"verdict"`
	Want    string   `json:"want"`          // the expected output, or "error:<kind>"
	Got     string   `json:"got,omitempty"` // the answer, or "error:<kind>"
	Message string   `json:"message,omitempty"`
	// Requirement is how the result binds: a failure as its failing assertion does (tiers.go),
	// another verdict as the vector's clauses do. A recommended failure blocks only under --strict.
	Requirement spec.Requirement `json:"requirement,omitempty"`
	// Failed names, for a failure, the comparison that failed with the clauses it cites.
	Failed   []kits.FailedAssertion `json:"failedAssertions,omitempty"`
	Expected string                 `json:"expectedFailure,omitempty"` // the ledger's reason, when listed
	// NotAsked says the vector was not sent: the fold had been given up on (Report.Unresponsive).
	NotAsked bool          `json:"notAsked,omitempty"`
	Duration time.Duration `json:"-"`
}

// Report is the outcome of a run.
type Report struct {
	Results []Result `json:"results"`
	// Excluded counts vectors left out by Config.Profile and Config.Run.
	Excluded int `json:"excluded"`
	// Unresponsive, when set, says why the fold was given up on: the vectors from then on are
	// unknown without being asked.
	Unresponsive string `json:"unresponsive,omitempty"`
	// LedgerErrors are ledger entries that are no longer true: a listed vector that passed or is
	// not in the corpus.
	LedgerErrors []string      `json:"ledgerErrors,omitempty"`
	Elapsed      time.Duration `json:"-"`
	// Meta says what was run: the shard, the corpus digest and the options (merge.go).
	Meta Meta `json:"-"`
}

// Counts tallies the verdicts; a failure listed in the ledger counts as expected-fail. NotMet
// counts the failures among Fail that are recommendations not met (Result.NotMet).
type Counts struct {
	Pass, Fail, Unknown, ExpectedFail, NotMet int
}

// Counts tallies r's verdicts.
func (r Report) Counts() Counts {
	var c Counts
	for _, x := range r.Results {
		switch {
		case x.Verdict == Pass:
			c.Pass++
		case x.Verdict == Fail && x.Expected != "":
			c.ExpectedFail++
		case x.Verdict == Fail:
			c.Fail++
			if x.NotMet() {
				c.NotMet++
			}
		default:
			c.Unknown++
		}
	}
	return c
}

// Blocking counts the failures that keep the run from passing: every unlisted failure under
// --strict, the required ones otherwise.
func (c Counts) blocking(strict bool) int {
	if strict {
		return c.Fail
	}
	return c.Fail - c.NotMet
}

// OK reports whether the run passes: it judged at least one vector (I-CERT-7), every vector
// passed, is a listed failure or (without --strict) a recommendation not met, no verdict is
// unknown and the ledger is true.
//
// A shard (Meta.Shard set) that judged nothing is not a failure: its part of the corpus may be
// empty, and the merged run applies the rule to the union (I-SHARD-2).
func (r Report) OK() bool {
	c := r.Counts()
	return !r.nothingJudged() && c.blocking(r.Meta.Strict) == 0 && c.Unknown == 0 && len(r.LedgerErrors) == 0
}

// Judged reports whether the run judged anything: some vector passed or failed.
func (r Report) Judged() bool {
	c := r.Counts()
	return c.Pass+c.Fail+c.ExpectedFail > 0
}

// Failing returns the ids whose verdict is not pass (listed or not), in run order.
func (r Report) Failing(v Verdict) []string {
	var out []string
	for _, x := range r.Results {
		if x.Verdict == v {
			out = append(out, x.ID)
		}
	}
	return out
}

// PingID is the id of the request the runner sends before the first vector, and again after
// DeadAfter unanswered vectors in a row: a canonical request of the text "null". Any answer, output
// or error, shows the fold is alive (docs/vectors.md).
const PingID = "loom/ping"

// ping asks f one cheap question within timeout.
func ping(ctx context.Context, f Folder, timeout time.Duration) error {
	in := "null"
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%v", timeout))
	defer cancel()
	_, err := f.Answer(pctx, Request{Kind: KindCanonical, ID: PingID, Input: &in})
	return err
}

// Run judges every vector of c against f. A vector without an answer is unknown and the run goes
// on, but a fold that does not answer the ping at the start, or after DeadAfter unanswered
// vectors in a row, is given up on: every remaining vector is unknown at once, so a hanging fold
// costs at most about 3 × Timeout (I-CERT-8). ctx cancellation ends the run; the remaining vectors
// are unknown.
func Run(ctx context.Context, c Corpus, f Folder, cfg Config) Report {
	cfg = cfg.withDefaults()
	start := time.Now()
	rep := Report{Meta: metaOf(c, cfg)}
	var selected []Vector
	for _, v := range c.Vectors {
		if !cfg.Shard.Includes(v.ID) {
			continue
		}
		if cfg.Profile != "" && v.Kind == KindFold && !sameVersion(v.Profile, cfg.Profile) ||
			cfg.Run != nil && !cfg.Run.MatchString(v.ID) {
			rep.Excluded++
			continue
		}
		selected = append(selected, v)
	}
	if len(selected) > 0 {
		if err := ping(ctx, f, cfg.Timeout); err != nil {
			rep.Unresponsive = fmt.Sprintf("the fold did not answer the ping before the first vector: %v", err)
		}
	}
	unanswered := 0
	for i, v := range selected {
		var res Result
		if rep.Unresponsive != "" {
			res = Result{ID: v.ID, Kind: v.Kind, File: v.File, Clauses: v.Clauses, Verdict: Unknown, NotAsked: true,
				Message: fmt.Sprintf("vector/%s [%s]: %s = not asked: %s", v.ID, strings.Join(v.Clauses, " "), op(v), rep.Unresponsive)}
			if w, we, err := v.Want(); err == nil {
				res.Want = w
				if we != "" {
					res.Want = "error:" + we
				}
			}
		} else {
			res = judge(ctx, v, f, cfg.Timeout)
			if res.Verdict == Unknown && res.Got == "" {
				unanswered++
				if unanswered >= cfg.DeadAfter {
					if err := ping(ctx, f, cfg.Timeout); err != nil {
						rep.Unresponsive = fmt.Sprintf("%d vectors in a row went unanswered (the last: %s) and so did the ping: %v", unanswered, v.ID, err)
					}
					unanswered = 0
				}
			} else {
				unanswered = 0
			}
		}
		if e, ok := cfg.Ledger.Lookup(v.ID); ok {
			res.Expected = e.Reason
			switch {
			case e.Expired(cfg.Now()):
				rep.LedgerErrors = append(rep.LedgerErrors, fmt.Sprintf("%s: the expected-failures entry expired on %s", v.ID, e.Expires))
			case res.Verdict == Pass:
				rep.LedgerErrors = append(rep.LedgerErrors, fmt.Sprintf("%s: listed as an expected failure (%s) but passes: remove it from the ledger", v.ID, e.Reason))
			}
		}
		rep.Results = append(rep.Results, res)
		if cfg.Progress != nil {
			if res.Verdict != Pass && !res.NotAsked {
				tag := string(res.Verdict)
				switch {
				case res.Expected != "":
					tag += " (expected)"
				case res.NotMet():
					tag += " (recommended)"
				}
				fmt.Fprintf(cfg.Progress, "%-18s %s  %s\n", tag, v.ID, firstLine(res.Message))
			}
			if (i+1)%cfg.ProgressEvery == 0 || i+1 == len(selected) {
				fmt.Fprintf(cfg.Progress, "progress: %d/%d vectors\n", i+1, len(selected))
			}
		}
	}
	if cfg.Ledger != nil {
		for _, e := range cfg.Ledger.Entries {
			if _, ok := c.ByID(e.Check); !ok && cfg.Shard.Includes(e.Check) {
				rep.LedgerErrors = append(rep.LedgerErrors, fmt.Sprintf("%s: listed as an expected failure but no vector has this id", e.Check))
			}
		}
	}
	if rep.Unresponsive != "" && cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "unresponsive fold: %s\n", rep.Unresponsive)
	}
	sort.Strings(rep.LedgerErrors) // each names its vector first: one order however the run is split
	rep.Elapsed = time.Since(start)
	return rep
}

// judge runs one vector.
func judge(ctx context.Context, v Vector, f Folder, timeout time.Duration) Result {
	res := Result{ID: v.ID, Kind: v.Kind, File: v.File, Clauses: v.Clauses, Requirement: requirementOf(v.Clauses, Unknown, nil)}
	wantOut, wantErr, err := v.Want()
	if err != nil {
		res.Verdict, res.Message = Unknown, err.Error()
		return res
	}
	res.Want = wantOut
	if wantErr != "" {
		res.Want = "error:" + wantErr
	}
	start := time.Now()
	vctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%v", timeout))
	resp, err := f.Answer(vctx, RequestFor(v))
	cancel()
	res.Duration = time.Since(start)
	if err != nil {
		res.Verdict = Unknown
		res.Message = fmt.Sprintf("vector/%s [%s]: %s = no answer: %v", v.ID, strings.Join(v.Clauses, " "), op(v), err)
		return res
	}
	if resp.Error != "" {
		res.Got = "error:" + resp.Error
	} else {
		res.Got = *resp.Output
	}
	if res.Got == res.Want {
		res.Verdict = Pass
		return res
	}
	res.Verdict = Fail
	var lines []string
	res.Failed, lines = failedAssertions(v, res.Want, res.Got, wantErr, resp.Error)
	res.Requirement = requirementOf(v.Clauses, Fail, res.Failed)
	res.Message = strings.Join(lines, "\n")
	if resp.Message != "" {
		res.Message = lines[0] + " (fold says: " + firstLine(resp.Message) + ")" + strings.TrimPrefix(res.Message, lines[0])
	}
	if d := jsonDiff(res.Want, res.Got); d != "" {
		res.Message += "\n(-want +got):\n" + d
	}
	return res
}

// op names the operation a vector exercises, for the failure grammar.
func op(v Vector) string {
	switch v.Kind {
	case KindFold:
		return fmt.Sprintf("Fold(%s, %s)", v.Profile, v.File)
	case KindCanonical:
		return fmt.Sprintf("Canonical(%s)", v.File)
	case KindDigest:
		return fmt.Sprintf("Digest(%s)", v.File)
	}
	return string(v.Kind)
}

// jsonDiff diffs two JSON texts by value, as JSON (internal/jsondiff: time linear in the values'
// size, whatever their nesting), or returns "" when either is not JSON: the failure line already
// shows both texts.
func jsonDiff(want, got string) string {
	if !json.Valid([]byte(want)) || !json.Valid([]byte(got)) {
		return ""
	}
	return jsondiff.Diff(json.RawMessage(want), json.RawMessage(got))
}

// sameVersion compares two schema versions as profiles (patches change no fold behaviour).
func sameVersion(a, b string) bool {
	pa, errA := fold.ProfileFor(a)
	pb, errB := fold.ProfileFor(b)
	return errA == nil && errB == nil && pa == pb
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func clipS(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
