package foreignfold

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
)

// The folds below keep the spec and differ from the reference only by taking another legal option
// of one choice (spec.Clause.Options), so the vectors must certify each with recommendations not
// met. Each answers as the reference does on a rewritten request: an envelope rewritten is the
// reference's own bytes with one member changed, so nothing else about the log moves.

// envelopeMembers decodes an envelope's members, keeping every value's bytes.
func envelopeMembers(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// rewritten answers req as the reference does after f has had each envelope of a fold request
// (with its index), f returning the envelope to fold instead or nil to leave it.
func rewritten(ctx context.Context, req vectors.Request, f func(i int, m map[string]json.RawMessage) map[string]json.RawMessage) (vectors.Response, error) {
	if req.Kind != vectors.KindFold || req.Events == nil {
		return vectors.Reference{}.Answer(ctx, req)
	}
	evs := slices.Clone(*req.Events)
	for i, raw := range evs {
		m, ok := envelopeMembers(raw)
		if !ok {
			continue
		}
		if out := f(i, m); out != nil {
			if b, err := json.Marshal(out); err == nil {
				evs[i] = b
			}
		}
	}
	req.Events = &evs
	return vectors.Reference{}.Answer(ctx, req)
}

// asString is the string raw holds, and whether it holds one.
func asString(raw json.RawMessage) (string, bool) {
	var s string
	return s, raw != nil && json.Unmarshal(raw, &s) == nil
}

// stampCanonical takes I-FOLD-4's other option: a flowEmit stamp that is not a string counts under
// its canonical JSON text.
func stampCanonical(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	return rewritten(ctx, req, func(_ int, m map[string]json.RawMessage) map[string]json.RawMessage {
		md, ok := envelopeMembers(m["metadata"])
		if !ok {
			return nil
		}
		stamp := md["flowEmit"]
		if _, isStr := asString(stamp); stamp == nil || isStr || string(stamp) == "null" {
			return nil
		}
		text, err := fold.CanonicalJSON(stamp)
		if err != nil {
			return nil
		}
		md["flowEmit"], _ = json.Marshal(string(text))
		m["metadata"], _ = json.Marshal(md)
		return m
	})
}

// decisionKeepsFirst takes I-FOLD-12's other option: a repeated DECISION_RECORDED id keeps the
// first record's members. The repeat is folded with the entry's own members as its payload, so
// only the fold's rebuild rules act on it (the first seq kept from 1.24.0, none before).
func decisionKeepsFirst(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	return rewritten(ctx, req, func(i int, m map[string]json.RawMessage) map[string]json.RawMessage {
		if t, _ := asString(m["eventType"]); t != "DECISION_RECORDED" {
			return nil
		}
		var p struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(m["payload"], &p) != nil || p.ID == nil {
			return nil
		}
		before, ok := stateBefore(ctx, req, i)
		if !ok {
			return nil
		}
		var st struct {
			Variables struct {
				Decisions map[string]map[string]json.RawMessage `json:"_decisions"`
			} `json:"variables"`
		}
		if json.Unmarshal(before, &st) != nil || st.Variables.Decisions[*p.ID] == nil {
			return nil
		}
		first := st.Variables.Decisions[*p.ID]
		delete(first, "seq")
		first["id"], _ = json.Marshal(*p.ID)
		m["payload"], _ = json.Marshal(first)
		return m
	})
}

// stateBefore is the reference's state, as it prints it, before envelope i of req (the snapshot
// and the envelopes before it), and whether the reference folds that far.
func stateBefore(ctx context.Context, req vectors.Request, i int) ([]byte, bool) {
	prefix := (*req.Events)[:i:i]
	r, err := vectors.Reference{}.Answer(ctx, vectors.Request{Kind: req.Kind, ID: req.ID, Profile: req.Profile,
		Snapshot: req.Snapshot, SnapshotProfile: req.SnapshotProfile, Events: &prefix})
	if err != nil || r.Output == nil {
		return nil, false
	}
	return []byte(*r.Output), true
}

// quarantineBound is the most entries a topic queue holds (spec §4, 1.25.0).
const quarantineBound = 1024

// dropOldestAtBound takes I-FOLD-10's other option: a quarantine that finds its topic's queue at
// the bound drops the queue's oldest held entry and appends, where the reference ignores it.
func dropOldestAtBound(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	if req.Kind != vectors.KindFold || req.Events == nil {
		return vectors.Reference{}.Answer(ctx, req)
	}
	longest := 0 // the snapshot's longest queue
	if req.Snapshot != nil {
		if b, ok := stateBefore(ctx, req, 0); ok {
			if st, err := fold.ParseState(b); err == nil {
				for _, q := range st.Variables.Quarantined {
					longest = max(longest, len(q))
				}
			}
		}
	}
	quarantines := 0
	for i, raw := range *req.Events {
		m, ok := envelopeMembers(raw)
		if t, _ := asString(m["eventType"]); !ok || t != "INBOX_QUARANTINED" {
			continue
		}
		if longest+quarantines >= quarantineBound { // its queue may be at the bound
			if rest, ok := atBound(ctx, req, i, m); ok {
				return dropOldestAtBound(ctx, rest)
			}
		}
		quarantines++
	}
	return vectors.Reference{}.Answer(ctx, req)
}

// atBound is the rest of req from envelope i on, when the reference would ignore that quarantine
// for the bound: the state before it, less its topic's oldest held entry, as the snapshot.
func atBound(ctx context.Context, req vectors.Request, i int, m map[string]json.RawMessage) (vectors.Request, bool) {
	var p struct {
		Topic     *string `json:"topic"`
		MessageID *string `json:"messageId"`
	}
	if json.Unmarshal(m["payload"], &p) != nil || p.Topic == nil || p.MessageID == nil {
		return vectors.Request{}, false
	}
	b, ok := stateBefore(ctx, req, i)
	if !ok {
		return vectors.Request{}, false
	}
	before, err := fold.ParseState(b)
	if err != nil {
		return vectors.Request{}, false
	}
	q := before.Variables.Quarantined[*p.Topic]
	oldest := slices.IndexFunc(q, func(e fold.QuarantineEntry) bool { return !e.Released })
	if len(q) < quarantineBound || oldest < 0 || slices.ContainsFunc(q, func(e fold.QuarantineEntry) bool { return e.MessageID == *p.MessageID }) {
		return vectors.Request{}, false
	}
	before.Variables.Quarantined[*p.Topic] = slices.Delete(slices.Clone(q), oldest, oldest+1)
	if b, err = before.MarshalJSON(); err != nil {
		return vectors.Request{}, false
	}
	rest := slices.Clone((*req.Events)[i:])
	return vectors.Request{Kind: req.Kind, ID: req.ID, Profile: req.Profile, Snapshot: b, Events: &rest}, true
}

// meterWhole takes I-FOLD-15's other option: a RESOURCE_METERED with one invalid measurement (a
// dimension or custom member that is not a finite number >= 0) is ignored whole.
func meterWhole(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	return rewritten(ctx, req, func(_ int, m map[string]json.RawMessage) map[string]json.RawMessage {
		if t, _ := asString(m["eventType"]); t != "RESOURCE_METERED" {
			return nil
		}
		p, ok := envelopeMembers(m["payload"])
		if !ok {
			return nil
		}
		valid := func(raw json.RawMessage) bool {
			var n float64
			return json.Unmarshal(raw, &n) == nil && n >= 0 && string(raw) != "null"
		}
		bad := false
		for _, d := range []string{"tokens", "costUsd", "ms", "memBytes", "wallMs", "netBytes"} {
			if raw, has := p[d]; has && !valid(raw) {
				bad = true
			}
		}
		if raw, has := p["custom"]; has && custom(req.Profile) {
			dims, ok := envelopeMembers(raw)
			bad = bad || !ok
			for _, v := range dims {
				bad = bad || !valid(v)
			}
		}
		if !bad {
			return nil
		}
		m["eventType"], _ = json.Marshal("RESOURCE_METERED_IGNORED")
		return m
	})
}

// custom reports whether profile folds RESOURCE_METERED.custom (1.23.0 on); before, the member is
// no measurement at all.
func custom(profile string) bool {
	p, err := fold.ProfileFor(profile)
	return err == nil && p.AtLeast(23)
}

// releaseUsable takes I-FOLD-27's other option: an INBOX_RELEASED carries operator only when it is
// a string and auto only when it is true; deliver counts only when it is true, as in the reference.
func releaseUsable(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	return rewritten(ctx, req, func(_ int, m map[string]json.RawMessage) map[string]json.RawMessage {
		if t, _ := asString(m["eventType"]); t != "INBOX_RELEASED" {
			return nil
		}
		p, ok := envelopeMembers(m["payload"])
		if !ok {
			return nil
		}
		changed := false
		if raw, has := p["operator"]; has {
			if _, isStr := asString(raw); !isStr {
				delete(p, "operator")
				changed = true
			}
		}
		if raw, has := p["auto"]; has && string(raw) != "true" {
			delete(p, "auto")
			changed = true
		}
		if !changed {
			return nil
		}
		m["payload"], _ = json.Marshal(p)
		return m
	})
}

// keepPrevious takes I-FOLD-17's other option: an EXECUTION_STARTED without input, an
// EXECUTION_COMPLETED without output or an EXECUTION_FAILED without error keeps the value the
// state holds (it is folded as if the member carried that value).
func keepPrevious(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	members := map[string][2]string{
		"EXECUTION_STARTED":   {"input", fold.VarInput},
		"EXECUTION_COMPLETED": {"output", fold.VarOutput},
		"EXECUTION_FAILED":    {"error", fold.VarError},
	}
	return rewritten(ctx, req, func(i int, m map[string]json.RawMessage) map[string]json.RawMessage {
		t, _ := asString(m["eventType"])
		mem, ok := members[t]
		if !ok {
			return nil
		}
		p, ok := envelopeMembers(m["payload"])
		if _, has := p[mem[0]]; !ok || has {
			return nil
		}
		b, ok := stateBefore(ctx, req, i)
		if !ok {
			return nil
		}
		var st struct {
			Variables map[string]json.RawMessage `json:"variables"`
		}
		prev, held := json.RawMessage(nil), false
		if json.Unmarshal(b, &st) == nil {
			prev, held = st.Variables[mem[1]]
		}
		if !held {
			return nil
		}
		p[mem[0]] = prev
		m["payload"], _ = json.Marshal(p)
		return m
	})
}

// pendingUntilStart takes I-FOLD-28's other option: a log without EXECUTION_STARTED stays pending
// until one arrives, whatever other execution-level event it holds.
func pendingUntilStart(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	r, err := vectors.Reference{}.Answer(ctx, req)
	if err != nil || req.Kind != vectors.KindFold || r.Output == nil {
		return r, err
	}
	st, err := fold.ParseState([]byte(*r.Output))
	if err != nil || st.StartedAt.Valid || st.Status == "pending" {
		return r, nil
	}
	st.Status = "pending"
	b, err := st.MarshalJSON()
	if err != nil {
		return r, nil
	}
	s := string(b)
	r.Output = &s
	return r, nil
}
