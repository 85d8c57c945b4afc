package kits

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/spec"
)

// Verdict is the outcome of one check.
type Verdict string

const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Skip    Verdict = "skip"    // the target does not claim the capability or version
	Unknown Verdict = "unknown" // timeout, panic or crash of the target: no judgement possible
)

// Result is the structured verdict of one check, for reports (certify) and the test driver.
type Result struct {
	Kit     string     `json:"kit"`
	CheckID string     `json:"checkId"`
	Clauses []string   `json:"clauses"`
	Level   spec.Level `json:"level"`
	// Requirement is how the result binds (Binding): for a failure, as its failing assertions'
	// clauses bind; otherwise as the check's. A recommended result never blocks a certificate.
	Requirement spec.Requirement `json:"requirement"`
	Verdict     Verdict          `json:"verdict"`
	// Failed lists, for a failure, the assertions that saw something wrong: each comparison's
	// clauses and how they bind (a tier per assertion, DESIGN §7.1).
	Failed   []FailedAssertion `json:"failedAssertions,omitempty"`
	Duration time.Duration     `json:"-"`
	Message  string            `json:"message,omitempty"`
	Seed     int64             `json:"seed"`
	// Repro is a one-line way to re-run exactly this check with this seed.
	Repro string `json:"repro,omitempty"`
	// Witness, on a linearizability failure, is the smallest history no order explains.
	Witness *Witness `json:"witness,omitempty"`
	// Finding, on an exploration's disagreement, is the shrunk script that reproduces it.
	Finding *explore.Finding `json:"finding,omitempty"`
	// FindingFile is where the finding was written (Options.Findings), or "".
	FindingFile string `json:"findingFile,omitempty"`
}

// MarshalJSON writes Duration as milliseconds (durationMs).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		DurationMs float64 `json:"durationMs"`
	}{plain(r), float64(r.Duration) / float64(time.Millisecond)})
}

func (r Result) String() string {
	s := fmt.Sprintf("%-7s %s [%s] %s", r.Verdict, r.CheckID, r.Level, r.Duration.Round(time.Millisecond))
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s
}

// FailedAssertion is one comparison of a failed check that saw something wrong.
type FailedAssertion struct {
	Op      string   `json:"op,omitempty"` // the operation compared, e.g. "eventStore.read"
	Clauses []string `json:"clauses"`      // the clauses the comparison enforces
	// Requirement is spec.CheckRequirement of the check's level and Clauses; Binds names the most
	// binding source or tier among Clauses ("spec", "adr", "protocol", "consequence", "choice").
	Requirement spec.Requirement `json:"requirement"`
	Binds       string           `json:"binds"`
}

// NewFailedAssertion describes a failing comparison of a check of level citing clauses.
func NewFailedAssertion(level spec.Level, op string, clauses []string) FailedAssertion {
	return FailedAssertion{Op: op, Clauses: clauses, Requirement: spec.CheckRequirement(level, clauses), Binds: spec.Binds(clauses)}
}

// Label is how reports name the assertion: "[S5.x I-KERNEL-6] required (spec)".
func (a FailedAssertion) Label() string {
	s := "[" + strings.Join(a.Clauses, " ") + "] " + string(a.Requirement) + " (" + a.Binds + ")"
	if a.Op != "" {
		s = a.Op + " " + s
	}
	return s
}

// Binding is how a result of a check of level enforcing clauses binds a target, the one rule every
// runner uses (DESIGN §7.1, a tier per assertion): a failure with failing assertions is required
// when any of them is (spec.CheckRequirement of its clauses), recommended when every one enforces
// only choices or only SHOULDs; any other result (a pass, a skip, an unknown, a failure that names
// no assertion) binds as the check does, through all of its clauses.
func Binding(level spec.Level, clauses []string, v Verdict, failed []FailedAssertion) spec.Requirement {
	if v != Fail || len(failed) == 0 {
		return spec.CheckRequirement(level, clauses)
	}
	for _, a := range failed {
		if spec.CheckRequirement(level, a.Clauses) == spec.Required {
			return spec.Required
		}
	}
	return spec.Recommended
}

// Violations lists every *Violation in err's tree (errors.Join and wrapping included), in order.
func Violations(err error) []*Violation {
	var out []*Violation
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
			return
		case *Violation:
			out = append(out, x)
			return
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
	return out
}

// Summary counts verdicts.
type Summary map[Verdict]int

// Summarize counts the verdicts of results.
func Summarize(results []Result) Summary {
	s := Summary{}
	for _, r := range results {
		s[r.Verdict]++
	}
	return s
}

// Certified reports whether results certify their target: no required check (spec.CheckRequirement)
// failed or stayed unknown, and every kit in results ran at least one required check
// (RequiredRun > 0). A kit whose required checks were all skipped judged nothing, so it certifies
// nothing; no results certify nothing. A recommended check never blocks.
func Certified(results []Result) bool {
	if len(results) == 0 {
		return false
	}
	kits := map[string]bool{}
	for _, r := range results {
		if Blocks(r) {
			return false
		}
		kits[r.Kit] = true
	}
	for kit := range kits {
		if RequiredRun(results, kit) == 0 {
			return false
		}
	}
	return true
}

// RequiredRun counts the required checks of kit that ran (any verdict but skip). The version-claim
// checks do not count: they judge the claim, not the store behind it.
func RequiredRun(results []Result, kit string) int {
	n := 0
	for _, r := range results {
		if r.Kit == kit && r.Requirement == spec.Required && r.Verdict != Skip && !strings.HasSuffix(r.CheckID, "/version-claim") {
			n++
		}
	}
	return n
}

// Blocks reports whether r keeps its target from being certified: a required check that failed or
// has no verdict.
func Blocks(r Result) bool {
	return r.Requirement == spec.Required && (r.Verdict == Fail || r.Verdict == Unknown)
}
