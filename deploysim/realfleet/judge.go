package realfleet

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// observed is what a finished fleet shows: each execution's log and the effect ledger.
type observed struct {
	read   func(ctx context.Context, execID string) ([]spi.Envelope, error)
	ledger func(ctx context.Context) ([]effectRun, []pauseSpan, error)
}

// invariantIDs are the invariants a real fleet can observe, in the order they are reported.
var invariantIDs = []string{"sim/dense", "sim/acked-events", "sim/ends-visibly", "sim/snapshot-every-k", "sim/single-worker", "sim/at-most-once", "sim/served-not-rerun"}

// check runs the invariants a real fleet can observe on the executions it settled (execs), from
// their logs and the effect ledger, and records which ran and on what, and what it could not judge
// (a log it could not read, an execution the single-worker reference did not settle): not
// judged, never a violation. ref holds the single-worker reference's final states.
func check(ctx context.Context, res *Result, obs observed, execs []deploysim.Execution, ref map[string]fold.State, repro string) {
	fail := func(id, exec, op, got, want string) {
		res.Violations = append(res.Violations, deploysim.NewViolation(id, exec, op, got, want, repro))
	}
	judged := map[string]int{}
	notJudged := func(id, exec, why string) {
		res.NotJudged = append(res.NotJudged, NotJudged{Invariant: id, Execution: exec, Why: why})
	}
	read := map[string]bool{}
	for _, e := range execs {
		evs, err := obs.read(ctx, e.ID)
		if err != nil {
			for _, id := range invariantIDs {
				notJudged(id, e.ID, "reading the log failed: "+err.Error())
			}
			continue
		}
		read[e.ID] = true
		res.Events += len(evs)
		judged["sim/dense"]++
		judged["sim/acked-events"]++
		ids := map[string]bool{}
		for i, ev := range evs {
			if ev.Sequence != int64(i) {
				fail("sim/dense", e.ID, "Read", fmt.Sprintf("sequence %d at index %d", ev.Sequence, i), "dense from 0")
				break
			}
			if ids[ev.ID] {
				fail("sim/acked-events", e.ID, "Read", fmt.Sprintf("envelope id %q twice", ev.ID), "each envelope once")
			}
			ids[ev.ID] = true
		}
		judged["sim/ends-visibly"]++
		st, err := fold.Fold(fold.Current(), nil, evs)
		if err != nil {
			fail("sim/ends-visibly", e.ID, "Fold", err.Error(), "a foldable log")
			continue
		}
		if st.Status != fold.StatusCompleted {
			fail("sim/ends-visibly", e.ID, "Fold", "status "+st.Status, "completed")
			continue
		}
		judged["sim/snapshot-every-k"]++
		for k := 0; k+1 < len(evs); k++ {
			snap, _ := fold.Fold(fold.Current(), nil, evs[:k+1])
			got, _ := fold.Fold(fold.Current(), &snap, evs[k+1:])
			if !fold.Equal(st, got) {
				fail("sim/snapshot-every-k", e.ID, "Fold", fmt.Sprintf("fold(snapshot@%d, tail) differs", k), "equal")
				break
			}
		}
		want, ok := ref[e.ID]
		if !ok || !settled(want.Status) {
			// A reference that did not finish an execution has nothing to compare it with.
			notJudged("sim/single-worker", e.ID, fmt.Sprintf("the single-worker reference did not settle it (status %q)", want.Status))
			continue
		}
		judged["sim/single-worker"]++
		if d := deploysim.SameOutcome(want, st); d != "" {
			fail("sim/single-worker", e.ID, "Fold", "a different final state:\n"+d, "the single-worker run's")
		}
	}
	runs, pauses, err := obs.ledger(ctx)
	var lv ledgerVerdict
	if err != nil {
		notJudged("sim/at-most-once", "", "reading the effect ledger failed: "+err.Error())
		notJudged("sim/served-not-rerun", "", "reading the effect ledger failed: "+err.Error())
	} else {
		lv = judgeLedger(runs, pauses, read)
		judged["sim/at-most-once"], judged["sim/served-not-rerun"] = lv.onceGroups, lv.runs
		for _, d := range lv.dup {
			fail("sim/at-most-once", d, "Effect", "run more than once", "at most once")
		}
		for _, r := range lv.rerun {
			fail("sim/served-not-rerun", r.exec, "Effect", fmt.Sprintf("%s (step %s, attempt %d) run live by %s after its completion was logged", r.tool, r.step, r.attempt, r.worker), "served from the log")
		}
	}
	res.Judged = len(read)
	for _, id := range invariantIDs {
		run := InvariantRun{ID: id, Judged: judged[id]}
		switch id {
		case "sim/acked-events":
			run.Note = "each envelope id once per log (a real fleet's acknowledgements are not observed)"
		case "sim/at-most-once":
			run.Note = "effect groups of the at-most-once tool"
			if lv.excusedOnce > 0 {
				run.Note += fmt.Sprintf("; %d second run(s) excused: made by a worker after it was resumed from a SIGSTOP that began before the first run (a zombie's effect, which only an effect-side fence prevents; I-SIM-3)", lv.excusedOnce)
			}
		case "sim/served-not-rerun":
			run.Note = "effect runs, from the ledger"
			if lv.excusedReruns > 0 {
				run.Note += fmt.Sprintf("; %d run(s) after the completion excused: the same zombie window (I-SIM-3)", lv.excusedReruns)
			}
		}
		res.Invariants = append(res.Invariants, run)
	}
}

// settled reports whether an execution with this status is finished: completed, failed or
// cancelled. A parked one waits for the outside world, and the fleet answers every park.
func settled(status string) bool {
	switch status {
	case fold.StatusCompleted, fold.StatusFailed, fold.StatusCancelled:
		return true
	}
	return false
}
