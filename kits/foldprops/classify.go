package foldprops

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Exception names a documented exception to fold(snapshot@k, tail) == fold(events) (spec §4).
type Exception string

// The documented exceptions.
const (
	// ExceptionFailedWithoutError: a pre-1.21.0 snapshot after an EXECUTION_FAILED without error
	// (never kernel-written), which normalizeSnapshotState takes for a step failure (ADR 0105 D4).
	ExceptionFailedWithoutError Exception = "pre-1.21 EXECUTION_FAILED without error"
	// ExceptionResumeAsCaughtFailure: a pre-1.21.0 snapshot of a genuine failure re-opened by
	// resumeAs (stale _error) that then caught a step failure (ADR 0105 D4).
	ExceptionResumeAsCaughtFailure Exception = "pre-1.21 resumeAs-reopened failure that caught a step failure"
	// ExceptionLateStepFailureAfterTerminal: a pre-1.21.0 snapshot taken after a late sibling
	// STEP_FAILED that followed EXECUTION_COMPLETED or EXECUTION_CANCELLED, with no
	// execution-level event since. The 1.20 fold failed the execution; its snapshot is
	// byte-identical to a caught step failure's, so normalizeSnapshotState reads it as running.
	// This is NOT one of the spec's two shapes: it is a documented exception by interpretation
	// (I-FOLD-20), reported under its own name.
	ExceptionLateStepFailureAfterTerminal Exception = "pre-1.21 late sibling STEP_FAILED after EXECUTION_COMPLETED/_CANCELLED (by interpretation, I-FOLD-20)"
	// ExceptionLegacyDecisions: _decisions entries absorbed by a 1.23 snapshot carry no seq and are
	// never given one (1.24.0).
	ExceptionLegacyDecisions Exception = "1.23 legacy decision entries without seq"
	// ExceptionMixedFleetUnstamped: a 1.23 node in a mixed fleet adds or rebuilds a decision
	// without seq (1.24.0).
	ExceptionMixedFleetUnstamped Exception = "mixed-fleet decision entries without seq"
	// ExceptionMixedFleetInput: a pre-1.26 node re-adds an input to a frame it settles (1.26.0).
	ExceptionMixedFleetInput Exception = "mixed-fleet settled frames keeping input"
)

// Verdict is the outcome of comparing a snapshot-path fold with the whole-log fold.
type Verdict struct {
	Equal      bool        // byte-identical
	Exceptions []Exception // the documented exceptions that explain every difference (if Defect is "")
	Defect     string      // a (-want +got) diff of what no documented exception explains
}

// Classify compares got (the fold of a snapshot written by writer at the end of prefix, read
// through the normaliser, plus the tail folded as tailReader) with want (the whole log folded as
// the current profile). Differences are erased only along the dimension of a documented exception
// and only when the log has that exception's shape; whatever remains is a defect.
func Classify(got, want fold.State, writer, tailReader fold.Profile, prefix []spi.Envelope) Verdict {
	gb, err1 := got.MarshalJSON()
	wb, err2 := want.MarshalJSON()
	if err1 != nil || err2 != nil {
		return Verdict{Defect: fmt.Sprintf("state has no canonical JSON: %v %v", err1, err2)}
	}
	if string(gb) == string(wb) {
		return Verdict{Equal: true}
	}
	var g, w map[string]any
	json.Unmarshal(gb, &g) //nolint:errcheck // canonical output
	json.Unmarshal(wb, &w) //nolint:errcheck // canonical output
	var exc []Exception
	mark := func(e Exception) {
		for _, x := range exc {
			if x == e {
				return
			}
		}
		exc = append(exc, e)
	}
	if !writer.AtLeast(24) || !tailReader.AtLeast(24) {
		gd, _ := vmap(g)["_decisions"].(map[string]any)
		wd, _ := vmap(w)["_decisions"].(map[string]any)
		for id, we := range wd {
			wem, _ := we.(map[string]any)
			gem, _ := gd[id].(map[string]any)
			if _, wseq := wem["seq"]; wseq && gem != nil {
				if _, gseq := gem["seq"]; !gseq {
					delete(wem, "seq")
					if !writer.AtLeast(24) {
						mark(ExceptionLegacyDecisions)
					} else {
						mark(ExceptionMixedFleetUnstamped)
					}
				}
			}
		}
	}
	if !tailReader.AtLeast(26) {
		gf, _ := g["frames"].(map[string]any)
		wf, _ := w["frames"].(map[string]any)
		for id, f := range gf {
			fm, _ := f.(map[string]any)
			wm, _ := wf[id].(map[string]any)
			st, _ := fm["status"].(string)
			if _, has := fm["input"]; has && wm != nil && (st == "completed" || st == "failed" || st == "cancelled") {
				if _, wHas := wm["input"]; !wHas {
					delete(fm, "input")
					mark(ExceptionMixedFleetInput)
				}
			}
		}
	}
	if !writer.AtLeast(21) && g["status"] != w["status"] {
		if e, ok := pre121Shape(prefix); ok && (e != ExceptionLateStepFailureAfterTerminal || lateShapeStatuses(g, w)) {
			g["status"] = w["status"]
			if fwp, ok := vmap(w)["_failedWhileParked"]; ok {
				vmap(g)["_failedWhileParked"] = fwp
			} else {
				delete(vmap(g), "_failedWhileParked")
			}
			mark(e)
		}
	}
	// reflect.DeepEqual first: the values are decoded JSON (maps, slices, strings, float64s
	// without NaN), where it agrees with cmp.Equal at a fraction of the cost; Diff only to report
	if !reflect.DeepEqual(w, g) {
		d := diff(w, g)
		return Verdict{Defect: d}
	}
	return Verdict{Exceptions: exc}
}

func vmap(m map[string]any) map[string]any {
	v, _ := m["variables"].(map[string]any)
	if v == nil {
		v = map[string]any{}
		m["variables"] = v
	}
	return v
}

// lateShapeStatuses reports whether the status difference is the one a late STEP_FAILED after a
// terminal event leaves: the normaliser's running (failed with a stale _error), the whole-log
// fold's completed or cancelled.
func lateShapeStatuses(g, w map[string]any) bool {
	gs, _ := g["status"].(string)
	ws, _ := w["status"].(string)
	return (gs == fold.StatusRunning || gs == fold.StatusFailed) && (ws == fold.StatusCompleted || ws == fold.StatusCancelled)
}

// pre121Shape reports which pre-1.21 shape the prefix holds, if any: a late STEP_FAILED after
// EXECUTION_COMPLETED/_CANCELLED with no execution-level event since (I-FOLD-20) first, since it
// decides the snapshot's status; else the two ADR 0105 D4 shapes anywhere in the prefix.
func pre121Shape(prefix []spi.Envelope) (Exception, bool) {
	failed, reopened := false, false
	var spec Exception
	ended, late := false, false
	for _, e := range prefix {
		switch e.EventType {
		case "EXECUTION_COMPLETED", "EXECUTION_CANCELLED":
			ended, late = true, false
		case "EXECUTION_STARTED", "EXECUTION_SUSPENDED", "EXECUTION_RESUMED", "EXECUTION_FAILED":
			ended, late = false, false
		case "STEP_FAILED":
			late = late || (ended && foldableStepID(e.Payload))
		}
		if spec != "" {
			continue
		}
		switch e.EventType {
		case "EXECUTION_FAILED":
			var p map[string]json.RawMessage
			if json.Unmarshal(e.Payload, &p) != nil || p["error"] == nil {
				spec = ExceptionFailedWithoutError
			}
			failed, reopened = true, false
		case "EXECUTION_RESUMED":
			reopened = reopened || failed
		case "STEP_FAILED":
			if reopened {
				spec = ExceptionResumeAsCaughtFailure
			}
		}
	}
	if late {
		return ExceptionLateStepFailureAfterTerminal, true
	}
	return spec, spec != ""
}

// foldableStepID reports whether a STEP_* payload names a step the fold acts on (a string stepId
// other than the rejected __proto__).
func foldableStepID(payload json.RawMessage) bool {
	var p map[string]json.RawMessage
	var id string
	if json.Unmarshal(payload, &p) != nil || len(p["stepId"]) == 0 || p["stepId"][0] != '"' {
		return false
	}
	return json.Unmarshal(p["stepId"], &id) == nil && id != "__proto__"
}
