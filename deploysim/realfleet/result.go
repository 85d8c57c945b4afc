package realfleet

import (
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/deploysim"
)

// Result is a real run: what was injected (Crashes, the SIGKILLs delivered to a live worker;
// Pauses, the SIGSTOPs of a running one), which invariants ran and on what, what could not be
// judged and why, and the throughput. It reports only what a real fleet observes (the
// simulation's counts of fenced appends or code mismatches have no counterpart here).
//
// A run judges only what settled: an execution the fleet did not finish by the deadline is
// counted in Unsettled (one verdict for the run, never a violation per execution), and one the
// single-worker reference did not finish is listed in NotJudged for sim/single-worker.
type Result struct {
	Scenario   string `json:"scenario"`
	Seed       int64  `json:"seed"`
	Workers    int    `json:"workers"`
	Executions int    `json:"executions"`
	// Judged counts the executions the invariants looked at: those the fleet settled.
	Judged         int                   `json:"judged"`
	Events         int                   `json:"events"`
	Crashes        int                   `json:"crashes"`
	Pauses         int                   `json:"pauses"`
	Exits          int                   `json:"exits"`   // workers that exited on their own, restarted
	Started        int                   `json:"started"` // worker processes started, restarts included
	Violations     []deploysim.Violation `json:"violations"`
	Unsettled      *Unsettled            `json:"unsettled,omitempty"`
	Repro          string                `json:"repro"`
	Invariants     []InvariantRun        `json:"invariants"`
	NotJudged      []NotJudged           `json:"notJudged"`
	Elapsed        time.Duration         `json:"elapsedNs"`
	ExecutionsPerS float64               `json:"executionsPerSecond"`
}

// Unsettled is a fleet that did not settle by its deadline: one verdict for the run. Its
// unfinished executions are not judged by any invariant (a log still being written says nothing
// yet); the ones that settled are judged as in any run.
type Unsettled struct {
	Deadline   time.Duration `json:"deadlineNs"`
	Unfinished int           `json:"unfinished"`
	// First lists some unfinished executions (at most maxListed), to start looking.
	First []string `json:"first"`
}

const maxListed = 10

func (u Unsettled) String() string {
	return fmt.Sprintf("did not settle in %s; %d unfinished, not judged", u.Deadline, u.Unfinished)
}

// Verdict is a run's outcome: pass (every invariant held on everything, and everything settled),
// fail (an invariant broke) or unknown (nothing broke, but the fleet did not settle in time).
type Verdict string

const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Unknown Verdict = "unknown"
)

// Verdict says how the run ended: a violation fails it whatever else happened; otherwise a fleet
// that did not settle is unknown (not judged is not passed).
func (r Result) Verdict() Verdict {
	switch {
	case len(r.Violations) > 0:
		return Fail
	case r.Unsettled != nil:
		return Unknown
	}
	return Pass
}

// InvariantRun says what one invariant judged in a real run.
type InvariantRun struct {
	ID string `json:"id"`
	// Judged counts what it looked at (executions, or effect groups for at-most-once).
	Judged int    `json:"judged"`
	Note   string `json:"note,omitempty"`
}

// NotJudged is a part of the run an invariant could not look at, and why (a read that failed is
// not a violation: nothing was seen to be wrong).
type NotJudged struct {
	Invariant string `json:"invariant"`
	Execution string `json:"execution,omitempty"`
	Why       string `json:"why"`
}
