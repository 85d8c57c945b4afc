package kernelkit

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// stmtInCase reports whether a statement of any script of case k (its flow and the flows its
// resumeAs actions migrate to), branches included, is one match accepts.
func stmtInCase(k clients.Case, match func(flowscript.Stmt) bool) bool {
	if stmtIn(k.Script.Body, match) {
		return true
	}
	return slices.ContainsFunc(k.Driver.Actions, func(a flowscript.DriverAction) bool {
		return a.Script != nil && stmtIn(a.Script.Body, match)
	})
}

// usesStep reports whether case k runs a step (execute, run, a human step): each records its
// attempt.
func usesStep(k clients.Case) bool {
	return stmtInCase(k, func(st flowscript.Stmt) bool { return st.Op == "execute" || st.Op == "run" })
}

// alignAttempts: how a step's attempts are numbered is the kernel's (I-KERNEL-3; the spec keys an
// in-doubt verdict and an effect's decisions by the attempt but does not number it). For each step
// whose runs the kernel numbers otherwise — as many distinct attempts, in the order its
// STEP_STARTED give them, as the reference's — the kernel's numbers are renamed to the
// reference's: in every object naming the step and an attempt (STEP_STARTED, STEP_RETRYING,
// EFFECT_INDOUBT, a park's condition, the step's frame) and in the ids that carry one
// (__loom_indoubt:<step>#<attempt>, effect:<step>#<attempt>:<id>). A kernel that gives two runs
// of a step one number is not aligned.
func alignAttempts(want, got *carrier.Run) {
	w, g := attemptsByStep(want.Log), attemptsByStep(got.Log)
	remap := map[string]map[string]json.Number{}
	for step, ga := range g {
		wa := w[step]
		if len(wa) != len(ga) || slices.Equal(wa, ga) {
			continue
		}
		m := map[string]json.Number{}
		for i := range ga {
			m[string(ga[i])] = wa[i]
		}
		remap[step] = m
	}
	if len(remap) == 0 {
		return
	}
	for i := range got.Log {
		got.Log[i].Payload = renameAttempts(got.Log[i].Payload, remap)
	}
	got.State = string(renameAttempts(json.RawMessage(got.State), remap))
}

// attemptsByStep lists, per step id, the attempts of its STEP_STARTED in log order (numbers in one
// form); nil for a step two of whose STEP_STARTED name one attempt.
func attemptsByStep(log []spi.Envelope) map[string][]json.Number {
	out := map[string][]json.Number{}
	for _, e := range log {
		if e.EventType != manifest.StepStarted {
			continue
		}
		var p struct {
			StepID  string      `json:"stepId"`
			Attempt json.Number `json:"attempt"`
		}
		if json.Unmarshal(e.Payload, &p) != nil || p.Attempt == "" {
			continue
		}
		a := json.Number(spi.NormalizeNumber(string(p.Attempt)))
		if slices.Contains(out[p.StepID], a) {
			out[p.StepID] = nil
			continue
		}
		if list, ok := out[p.StepID]; ok && list == nil {
			continue
		}
		out[p.StepID] = append(out[p.StepID], a)
	}
	return out
}

// renameAttempts rewrites raw's attempts of the steps in remap (got attempt → want attempt): the
// attempt of every object whose stepId names such a step, the attempt of every frame of one, and
// the attempt in every id string or key that carries one. raw is returned as it was when nothing
// changed.
func renameAttempts(raw json.RawMessage, remap map[string]map[string]json.Number) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	changed := false
	attempt := func(step string, a any) any {
		n, ok := a.(json.Number)
		if !ok {
			return a
		}
		if to, ok := remap[step][spi.NormalizeNumber(string(n))]; ok && to != n {
			changed = true
			return to
		}
		return a
	}
	var walk func(v any, frames bool) any
	walk = func(v any, frames bool) any {
		switch x := v.(type) {
		case string:
			if r, ok := renameAttemptID(x, remap); ok {
				changed = true
				return r
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i], false)
			}
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, e := range x {
				if r, ok := renameAttemptID(k, remap); ok {
					k, changed = r, true
				}
				switch {
				case frames:
					if f, ok := e.(map[string]any); ok {
						f["attempt"] = attempt(k, f["attempt"])
					}
					out[k] = walk(e, false)
				default:
					out[k] = walk(e, k == "frames")
				}
			}
			if step, ok := out["stepId"].(string); ok {
				if _, has := out["attempt"]; has {
					out["attempt"] = attempt(step, out["attempt"])
				}
			}
			return out
		}
		return v
	}
	v = walk(v, false)
	if !changed {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// renameAttemptID renames the attempt an id carries — __loom_indoubt:<step>#<attempt> (an
// in-doubt verdict) or effect:<step>#<attempt>:<id> (an effect's decision) — as remap says.
func renameAttemptID(s string, remap map[string]map[string]json.Number) (string, bool) {
	for _, prefix := range []string{"__loom_indoubt:", "effect:"} {
		body, ok := strings.CutPrefix(s, prefix)
		if !ok {
			continue
		}
		for step, m := range remap {
			rest, ok := strings.CutPrefix(body, step+"#")
			if !ok {
				continue
			}
			a, tail := rest, ""
			if prefix == "effect:" {
				i := strings.IndexByte(rest, ':')
				if i < 0 {
					continue
				}
				a, tail = rest[:i], rest[i:]
			}
			if to, ok := m[spi.NormalizeNumber(a)]; ok && string(to) != a {
				return prefix + step + "#" + string(to) + tail, true
			}
		}
	}
	return "", false
}

// alignWorkflowIDs: the workflowId of an envelope written after a resumeAs is the kernel's
// (I-KERNEL-15: the running flow's id in the reference, which finds an execution's code by it).
// Where the kernel's envelope names a flow of the case and the reference's another, the
// reference's is taken.
func alignWorkflowIDs(k clients.Case, want, got *carrier.Run) {
	flows := map[string]bool{k.Script.ID: true}
	for _, a := range k.Driver.Actions {
		if a.Script != nil {
			flows[a.Script.ID] = true
		}
	}
	for i := range min(len(want.Log), len(got.Log)) {
		w, g := want.Log[i].WorkflowID, got.Log[i].WorkflowID
		if w != g && flows[w] && flows[g] {
			got.Log[i].WorkflowID = w
		}
	}
}

// alignKernelStamps: whether APPROVAL_GRANTED, EXECUTION_MIGRATED, EXECUTION_RECOVERED and the
// kernel's own DECISION_RECORDED (an in-doubt verdict, a discard override: a __loom_ id no caller
// may write) carry metadata {kernel: true} is the kernel's (I-KERNEL-50; the spec asks for the
// stamp only where the fold gates on it). Where the kernel's envelope of one of these has the
// payload of one of the reference's and their metadata differ by kernel alone, the reference's
// metadata is taken. The delivered event and EXECUTION_RESUMED are not among them.
func alignKernelStamps(want, got *carrier.Run) {
	for i, g := range got.Log {
		switch g.EventType {
		case manifest.ApprovalGranted, manifest.ExecutionMigrated, manifest.ExecutionRecovered:
		case manifest.DecisionRecorded:
			if !strings.HasPrefix(string(memberOf(g.Payload, "id")), `"__loom_`) {
				continue
			}
		default:
			continue
		}
		for _, w := range want.Log {
			if w.EventType == g.EventType && bytes.Equal(normValue(w.Payload), normValue(g.Payload)) &&
				!bytes.Equal(normValue(w.Metadata), normValue(g.Metadata)) && sameBeside(w.Metadata, g.Metadata, "kernel") {
				got.Log[i].Metadata = w.Metadata
				break
			}
		}
	}
}
