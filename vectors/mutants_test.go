package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
)

// folderFunc adapts a function to Folder.
type folderFunc func(ctx context.Context, req Request) (Response, error)

func (f folderFunc) Answer(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// stopsAt folds every profile newer than 1.<minor>.0 as 1.<minor>.0.
func stopsAt(minor int) Folder {
	cap := func(v string) string {
		p, err := fold.ProfileFor(v)
		if err != nil || p.Version() <= fmt.Sprintf("1.%d.0", minor) {
			return v
		}
		return fmt.Sprintf("1.%d.0", minor)
	}
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindFold {
			req.Profile = cap(req.Profile)
			if req.SnapshotProfile != "" {
				req.SnapshotProfile = cap(req.SnapshotProfile)
			}
		}
		return Reference{}.Answer(ctx, req)
	})
}

// rewriteEvents applies f to every event of a fold request before the reference folds it.
func rewriteEvents(f func(ev map[string]any) bool) Folder {
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindFold && req.Events != nil {
			var evs []json.RawMessage
			for _, raw := range *req.Events {
				var ev map[string]any
				if json.Unmarshal(raw, &ev) != nil {
					evs = append(evs, raw)
					continue
				}
				before, _ := json.Marshal(ev)
				if !f(ev) {
					continue
				}
				b, _ := json.Marshal(ev)
				if string(b) == string(before) {
					b = raw // untouched: as written (a Go decoding would lose lone surrogates)
				}
				evs = append(evs, b)
			}
			if evs == nil {
				evs = []json.RawMessage{}
			}
			req.Events = &evs
		}
		return Reference{}.Answer(ctx, req)
	})
}

// rewriteState applies f to the decoded state of every fold answer (numbers kept exact) and
// answers its canonical form.
func rewriteState(f func(st map[string]any)) Folder {
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		resp, err := Reference{}.Answer(ctx, req)
		if err != nil || req.Kind != KindFold || resp.Output == nil {
			return resp, err
		}
		dec := json.NewDecoder(strings.NewReader(*resp.Output))
		dec.UseNumber()
		var st map[string]any
		if dec.Decode(&st) != nil {
			return resp, nil
		}
		before, _ := json.Marshal(st)
		f(st)
		b, _ := json.Marshal(st)
		if string(b) == string(before) {
			return resp, nil // untouched: as the reference printed it
		}
		if c, err := fold.CanonicalJSON(b); err == nil {
			out := string(c)
			resp.Output = &out
		}
		return resp, nil
	})
}

// vars returns the state's variables object, or nil.
func vars(st map[string]any) map[string]any {
	v, _ := st["variables"].(map[string]any)
	return v
}

// brokenFolders builds the in-process broken folds of Mutants, by id.
func brokenFolders() map[string]Folder {
	out := map[string]Folder{}
	for minor := 20; minor <= 25; minor++ {
		out[fmt.Sprintf("fold/vectors/stops-at-1.%d", minor)] = stopsAt(minor)
	}
	stamp := func(ev map[string]any) {
		md, _ := ev["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
		}
		md["kernel"] = true
		ev["metadata"] = md
	}
	out["fold/vectors/trusts-unstamped"] = rewriteEvents(func(ev map[string]any) bool {
		stamp(ev)
		return true
	})
	out["fold/vectors/ignores-snapshot-profile"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		req.SnapshotProfile = "" // every snapshot read as if the vector's profile wrote it
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/trusts-unstamped-quarantine"] = rewriteEvents(func(ev map[string]any) bool {
		if t := ev["eventType"]; t == "INBOX_QUARANTINED" || t == "INBOX_RELEASED" {
			stamp(ev)
		}
		return true
	})
	out["fold/vectors/outcome-fields-refused"] = rewriteEvents(func(ev map[string]any) bool {
		p, _ := ev["payload"].(map[string]any)
		_, by := p["recordedBy"]
		_, late := p["late"]
		return ev["eventType"] != "OUTCOME_RECORDED" || !(by || late)
	})
	out["fold/vectors/skips-sealed"] = rewriteEvents(func(ev map[string]any) bool {
		md, _ := ev["metadata"].(map[string]any)
		_, sealed := md["seal"]
		return !sealed
	})
	out["fold/vectors/canonical-unsorted"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindCanonical && req.Input != nil {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(*req.Input)); err == nil {
				s := b.String()
				return Response{ID: req.ID, Output: &s}, nil
			}
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/digest-ignores-segment"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindDigest && req.Segment != nil {
			zero := 0
			req.Segment = &zero
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/digest-payload-only"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindDigest {
			req.EventType = ""
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/migrated-input-ignored"] = rewriteEvents(func(ev map[string]any) bool {
		if ev["eventType"] == "EXECUTION_MIGRATED" {
			if p, ok := ev["payload"].(map[string]any); ok {
				delete(p, "migratedInput")
			}
		}
		return true
	})
	out["fold/vectors/no-resume-payloads"] = rewriteState(func(st map[string]any) {
		delete(vars(st), "_resumePayloads")
	})
	out["fold/vectors/decisions-drop-context"] = rewriteState(func(st map[string]any) {
		ds, _ := vars(st)["_decisions"].(map[string]any)
		for _, d := range ds {
			if d, ok := d.(map[string]any); ok {
				delete(d, "context")
				delete(d, "policy")
			}
		}
	})
	out["fold/vectors/emits-counted-on-app-types-only"] = rewriteEvents(func(ev map[string]any) bool {
		if et, _ := ev["eventType"].(string); manifest.IsKernelEventType(et) {
			if md, ok := ev["metadata"].(map[string]any); ok {
				delete(md, "flowEmit")
			}
		}
		return true
	})
	out["fold/vectors/null-resume-dropped"] = rewriteEvents(func(ev map[string]any) bool {
		return !(ev["eventType"] == "EXECUTION_RESUMED" && ev["payload"] == nil)
	})
	out["fold/vectors/seq-invented"] = rewriteState(func(st map[string]any) {
		ds, _ := vars(st)["_decisions"].(map[string]any)
		for _, d := range ds {
			if d, ok := d.(map[string]any); ok {
				if _, has := d["seq"]; !has {
					d["seq"] = json.Number("0")
				}
			}
		}
	})
	out["fold/vectors/input-never-kept"] = rewriteState(func(st map[string]any) {
		frames, _ := st["frames"].(map[string]any)
		for _, f := range frames {
			if f, ok := f.(map[string]any); ok {
				delete(f, "input")
			}
		}
	})
	out["fold/vectors/emit-count-off-by-one"] = rewriteState(func(st map[string]any) {
		fe, _ := vars(st)["_flowEmits"].(map[string]any)
		for k, v := range fe {
			if n, ok := v.(json.Number); ok {
				i, _ := n.Int64()
				fe[k] = i + 1
			}
		}
	})
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "__proto__")
			for k, e := range x {
				x[k] = strip(e)
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	out["fold/vectors/proto-stripped"] = rewriteEvents(func(ev map[string]any) bool {
		ev["payload"] = strip(ev["payload"])
		return true
	})
	calls := 0
	out["fold/vectors/nondeterministic"] = rewriteState(func(st map[string]any) {
		calls++
		st["updatedAt"] = json.Number(fmt.Sprint(1_000_000 + calls))
	})
	out["fold/vectors/extra-state-member"] = rewriteState(func(st map[string]any) {
		st["lastEventType"] = "folded"
	})
	out["fold/vectors/ignores-profile"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindFold {
			req.Profile = fold.Current().Version()
			if req.SnapshotProfile != "" {
				req.SnapshotProfile = fold.Current().Version()
			}
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/attempt-keeps-infinity"] = attemptKeepsInfinity()
	out["fold/vectors/park-keys-cleared-before-their-version"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		p, err := fold.ProfileFor(req.Profile)
		if err != nil || req.Kind != KindFold || req.Events == nil {
			return Reference{}.Answer(ctx, req)
		}
		ends := false
		for _, raw := range *req.Events {
			var ev struct{ EventType string }
			_ = json.Unmarshal(raw, &ev)
			ends = ends || strings.HasPrefix(ev.EventType, "EXECUTION_")
		}
		return rewriteState(func(st map[string]any) {
			if ends && !p.AtLeast(23) {
				delete(vars(st), "_waits")
			}
			if ends && !p.AtLeast(21) {
				delete(vars(st), "_failedWhileParked")
			}
		}).Answer(ctx, req)
	})
	out["fold/vectors/snapshot-unknown-members-dropped"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		var snap map[string]any
		if req.Kind != KindFold || req.Snapshot == nil || json.Unmarshal(req.Snapshot, &snap) != nil {
			return Reference{}.Answer(ctx, req)
		}
		v, _ := snap["variables"].(map[string]any)
		inbox, _ := v["_inbox"].(map[string]any)
		for _, c := range inbox {
			if c, ok := c.(map[string]any); ok {
				for k := range c {
					if k != "count" && k != "last" {
						delete(c, k)
					}
				}
			}
		}
		queues, _ := v["_quarantined"].(map[string]any)
		for _, q := range queues {
			es, _ := q.([]any)
			for _, e := range es {
				if e, ok := e.(map[string]any); ok {
					for k := range e {
						if k != "messageId" && k != "state" && k != "message" {
							delete(e, k)
						}
					}
				}
			}
		}
		b, _ := json.Marshal(snap)
		req.Snapshot = b
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/suspended-on-proto-refused"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		var snap struct {
			Variables struct {
				SuspendedOn map[string]json.RawMessage `json:"_suspendedOn"`
			} `json:"variables"`
		}
		if req.Kind == KindFold && req.Snapshot != nil && json.Unmarshal(req.Snapshot, &snap) == nil {
			if _, ok := snap.Variables.SuspendedOn["__proto__"]; ok {
				return Response{ID: req.ID, Error: ErrInvalidSnapshot, Message: "_suspendedOn: __proto__"}, nil
			}
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/carry-judged-before-proto"] = rewriteEvents(func(ev map[string]any) bool {
		p, _ := ev["payload"].(map[string]any)
		carry, _ := p["carry"].(map[string]any)
		if ev["eventType"] == "EXECUTION_STARTED" && carry != nil {
			res, isObj := carry["resources"].(map[string]any)
			valid := isObj || carry["resources"] == nil
			for k, v := range res {
				if x, isNum := v.(float64); k != "custom" && (!isNum || x < 0) {
					valid = false
				}
			}
			if !valid {
				delete(p, "carry") // ignored whole, its __proto__ never seen
			}
		}
		return true
	})
	kernelOnly := func(ev map[string]any) bool {
		switch ev["eventType"] {
		case "MESSAGE_CONSUMED", "PARALLEL_COMPLETED", "INBOX_QUARANTINED", "INBOX_RELEASED", "EXECUTION_RESUMED":
			return true
		}
		return false
	}
	stamped := func(ev map[string]any) bool {
		md, _ := ev["metadata"].(map[string]any)
		return md["kernel"] == true
	}
	out["fold/vectors/members-judged-before-proto"] = rewriteEvents(func(ev map[string]any) bool {
		p, _ := ev["payload"].(map[string]any)
		if t := ev["eventType"]; (t == "MESSAGE_CONSUMED" || t == "INBOX_QUARANTINED" || t == "INBOX_RELEASED") && stamped(ev) && p != nil {
			_, topicOK := p["topic"].(string)
			_, msgOK := p["messageId"].(string)
			if !topicOK || !msgOK {
				p["topic"], p["waitId"] = 0, 0 // a no-op before any __proto__ is looked for
			}
		}
		return true
	})
	out["fold/vectors/proto-before-gate"] = rewriteEvents(func(ev map[string]any) bool {
		p, _ := ev["payload"].(map[string]any)
		if kernelOnly(ev) && !stamped(ev) && p != nil && (p["topic"] == "__proto__" || p["scopeId"] == "__proto__" || p["waitId"] == "__proto__") {
			ev["eventType"], ev["payload"] = "progress", map[string]any{} // rejected: nothing counts
			delete(ev, "metadata")
		}
		return true
	})
	return out
}

// attemptKeepsInfinity folds with the reference, then prints as null the attempt of every frame a
// STEP_* payload gave an attempt beyond the double range (what JavaScript does with Infinity).
func attemptKeepsInfinity() Folder {
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		resp, err := Reference{}.Answer(ctx, req)
		if err != nil || req.Kind != KindFold || resp.Output == nil || req.Events == nil {
			return resp, err
		}
		infinite := map[string]bool{}
		for _, raw := range *req.Events {
			var ev struct {
				EventType string          `json:"eventType"`
				Payload   json.RawMessage `json:"payload"`
			}
			var p map[string]any
			if json.Unmarshal(raw, &ev) != nil || !strings.HasPrefix(ev.EventType, "STEP_") {
				continue
			}
			d := json.NewDecoder(bytes.NewReader(ev.Payload))
			d.UseNumber()
			if d.Decode(&p) != nil {
				continue
			}
			id, _ := p["stepId"].(string)
			if a, ok := p["attempt"].(json.Number); ok {
				if _, err := strconv.ParseFloat(string(a), 64); err != nil {
					infinite[id] = true
				}
			}
		}
		return rewriteState(func(st map[string]any) {
			frames, _ := st["frames"].(map[string]any)
			for id := range infinite {
				if f, ok := frames[id].(map[string]any); ok {
					f["attempt"] = nil
				}
			}
		}).Answer(ctx, req)
	})
}

// recordVectorKills asserts that every vector m names as catching it failed, and records a kill
// for every failing vector linked to a clause m violates. It returns the failing vector ids.
func recordVectorKills(t *testing.T, m spec.Mutant, rep Report) []string {
	t.Helper()
	violates := map[string]bool{}
	for _, c := range m.Clauses {
		violates[c] = true
	}
	failed := map[string]Result{}
	var ids []string
	for _, r := range rep.Results {
		if r.Verdict == Fail {
			failed["vector/"+r.ID] = r
			ids = append(ids, r.ID)
		}
	}
	for _, c := range m.CaughtBy {
		if _, ok := failed[c]; !ok {
			t.Errorf("%s %v: Run(%s) passed, want it failed (the mutant survives it)", c, m.Clauses, m.ID)
		}
	}
	proven := map[string]bool{}
	for id, r := range failed {
		if !slices.Contains(m.CaughtBy, id) {
			continue // a further vector the mutant fails: asserted above only for the registered ones
		}
		// A kill counts for the clauses the failing assertions cite: a vector whose comparison of a
		// required clause passes proves nothing about it by failing on a choice's paths.
		for _, c := range r.FailedClauses() {
			if violates[c] {
				proof.Rejected(t, m.ID, id, fmt.Sprintf("%s %v: got %.120s, want %.120s", id, r.FailedClauses(), r.Got, r.Want))
				proven[c] = true
			}
		}
	}
	for _, c := range m.Clauses {
		if !proven[c] {
			t.Errorf("%s: no vector it is registered as caught by fails an assertion citing %s, want one (a clause it breaks)", m.ID, c)
		}
	}
	return ids
}

// Every in-process broken fold fails the vectors that pin its defect; the kills are recorded per
// failing vector. Reference: spec §3, §4; ADR 0026 (the vectors catch a wrong fold).
func TestVectorsRejectBrokenFolds(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	folders := brokenFolders()
	var built []string
	for id := range folders {
		built = append(built, id)
	}
	for _, m := range proof.Registered(t, Mutants(), "vectors:TestVectorsRejectBrokenFolds", built) {
		t.Run(strings.TrimPrefix(m.ID, "fold/vectors/"), func(t *testing.T) {
			rep := Run(context.Background(), c, folders[m.ID], Config{})
			ids := recordVectorKills(t, m, rep)
			if len(ids) == 0 {
				t.Fatalf("Run(%s) failed no vector, want the mutant rejected", m.ID)
			}
			// certified (its failures recommendations not met) iff it breaks only choices
			choicesOnly := spec.RequirementOf(m.Clauses) == spec.Recommended
			if rep.OK() != choicesOnly {
				var required []string
				for _, x := range rep.Results {
					if x.Verdict == Fail && !x.NotMet() {
						required = append(required, x.ID+" "+strings.Join(x.FailedLines(), "; "))
					}
				}
				t.Errorf("vectors/tiers [I-CERT-10]: Run(%s) OK = %v, want %v: registered as breaking %v; required failures %q",
					m.ID, rep.OK(), choicesOnly, m.Clauses, required)
			}
			strict := rep
			strict.Meta.Strict = true
			if strict.OK() {
				t.Errorf("vectors/tiers: Run(%s) under --strict OK = true, want false", m.ID)
			}
			t.Logf("%s fails %d vectors: %.300v", m.ID, len(ids), ids)
		})
	}
}
