package fold

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The reference definition of the state's JSON: the state as a tree of maps with raw leaves,
// encoded by Canonical. The direct encoder (appendState) must print exactly these bytes.
func referenceStateJSON(s State) ([]byte, error) { return Canonical(s.tree()) }

// tree returns the state as nested maps with raw JSON leaves.
func (s State) tree() map[string]any {
	frames := make(map[string]any, len(s.Frames))
	for id, fr := range s.Frames {
		frames[id] = fr.tree()
	}
	status := s.Status
	if status == "" {
		status = StatusPending
	}
	return map[string]any{
		"status":    status,
		"frames":    frames,
		"variables": s.Variables.tree(),
		"sequence":  s.Sequence,
		"startedAt": nullInt(s.StartedAt),
		"updatedAt": nullInt(s.UpdatedAt),
	}
}

func (v Variables) tree() map[string]any {
	m := make(map[string]any, len(v.Values)+12)
	for k, x := range v.Values {
		m[k] = x
	}
	if v.ResumePayloads != nil {
		m[VarResumePayloads] = rawList(v.ResumePayloads)
	}
	if v.FlowEmits != nil {
		fe := make(map[string]any, len(v.FlowEmits))
		for k, n := range v.FlowEmits {
			fe[k] = n
		}
		m[VarFlowEmits] = fe
	}
	if v.Decisions != nil {
		ds := make(map[string]any, len(v.Decisions))
		for k, d := range v.Decisions {
			ds[k] = d.tree()
		}
		m[VarDecisions] = ds
	}
	if v.Lifecycle != nil {
		m[VarLifecycle] = rawList(v.Lifecycle)
	}
	if v.Inbox != nil {
		in := make(map[string]any, len(v.Inbox))
		for k, c := range v.Inbox {
			in[k] = map[string]any{"count": c.Count, "last": c.Last}
		}
		m[VarInbox] = in
	}
	if v.WaitAnswers != nil {
		m[VarWaitAnswers] = v.WaitAnswers
	}
	if v.Scopes != nil {
		m[VarScopes] = v.Scopes
	}
	if v.Resources != nil || v.ResourcesCustom != nil {
		m[VarResources] = v.typedTree(VarResources)
	}
	if v.Quarantined != nil {
		m[VarQuarantined] = v.typedTree(VarQuarantined)
	}
	return m
}

func nullInt(n NullInt) any {
	if !n.Valid {
		return nil
	}
	return n.Int
}

func rawList(l []json.RawMessage) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = v
	}
	return out
}

// Reference: DESIGN §3.3 — the direct state encoder prints the bytes of the reference tree
// encoding, for folded logs and for states with Extra members, typed keys shadowing Values,
// non-canonical and invalid leaves.
func TestStateEncodingMatchesReference(t *testing.T) {
	states := map[string]State{}
	for _, n := range []int{1, 50, 2000} {
		st, err := FoldBytes(Current(), nil, benchLog(n))
		if err != nil {
			t.Fatal(err)
		}
		states["benchLog/"+strconv.Itoa(n)] = st
	}
	for i, s := range foldSeeds {
		if st, err := FoldBytes(Current(), nil, []byte(s)); err == nil {
			states["seed/"+strconv.Itoa(i)] = st
		}
	}
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	leaves := []string{`1`, `-0`, `1.50`, `1e21`, `1E2`, `123456789012345678`, `0.1`, `{"b":1,"a":2}`, `{"a":1,"a":2}`,
		`{ "a" : [ 1 , 2 ] }`, `"\u0041"`, `"\ud800"`, `"é"`, `"\n"`, `{"\u0061":1}`, `[1,{"z":null,"y":true}]`,
		`1e400`, `nul`, ``, `{"a":}`, ` 1 `, strings.Repeat("[", 20) + strings.Repeat("]", 20), `{"é":1,"z":2}`, `{"😀":1,"דּ":2}`}
	for i, l := range leaves {
		name := "leaf/" + strconv.Itoa(i)
		states[name+"/frame"] = State{Status: StatusRunning, Frames: map[string]Frame{"s": {StepID: "s", Status: FrameRunning, Input: raw(l)}}}
		states[name+"/extra"] = State{Frames: map[string]Frame{"s": {StepID: "s", Status: FrameRunning, Extra: map[string]json.RawMessage{"zeta": raw(l), "status": raw(`"x"`)}}}}
		states[name+"/vars"] = State{Variables: Variables{
			Values:         map[string]json.RawMessage{"user": raw(l), VarDecisions: raw(`"shadowed"`), VarScopes: raw(l)},
			ResumePayloads: []json.RawMessage{raw(l)},
			FlowEmits:      map[string]int64{"ab": 2, "aa": 1},
			Decisions: map[string]Decision{"d2": {Choice: raw(l), Seq: 3, HasSeq: true}, "d1": {Context: raw(l)},
				"d3": {Choice: raw(`1`), Extra: map[string]json.RawMessage{"aa": raw(l)}}, "d4": {}},
			Inbox:       map[string]InboxCursor{"t": {Count: 2, Last: "m\u2028"}},
			WaitAnswers: map[string]json.RawMessage{"w": raw(l)},
			Resources:   map[string]float64{"tokens": 3},
			Quarantined: map[string][]QuarantineEntry{"t": {{MessageID: "m", Released: true, Message: raw(l)}}},
		}}
	}
	for name, v := range map[string]Variables{
		"resources/custom-dimension": {Resources: map[string]float64{"custom": 1, "tokens": 2.5, "é": 1e21}},
		"resources/custom":           {ResourcesCustom: map[string]float64{"gpu": 0.1, "b": 3}},
		"resources/both":             {Resources: map[string]float64{"custom": 1, "a": 2}, ResourcesCustom: map[string]float64{}},
		"resources/nan":              {Resources: map[string]float64{"a": math.NaN()}},
		"resources/custom-inf":       {ResourcesCustom: map[string]float64{"a": math.Inf(1)}},
		"quarantined": {Quarantined: map[string][]QuarantineEntry{"b": {{MessageID: "m\n1", Released: true}, {MessageID: "m2", Message: raw(`{ "x":1}`)}},
			"a": {}, "\u00e9": {{MessageID: "x", Message: raw(`bad`)}}}},
	} {
		states[name] = State{Variables: v}
	}
	for name, s := range states {
		want, werr := referenceStateJSON(s)
		got, gerr := s.MarshalJSON()
		if (werr == nil) != (gerr == nil) || (werr == nil && string(got) != string(want)) {
			t.Errorf("fold/state-encoding [S3.emit.canonical-form]: %s: MarshalJSON() = %s, %v, want %s, %v", name, got, gerr, want, werr)
		}
		if app, err := AppendState([]byte("x"), s); (err == nil) != (werr == nil) || (err == nil && string(app) != "x"+string(want)) {
			t.Errorf("fold/state-encoding [S3.emit.canonical-form]: %s: AppendState = %s, %v, want x%s", name, app, err, want)
		}
	}
}

// typedTree returns the tree of the typed reserved key _resources or _quarantined.
func (v Variables) typedTree(key string) any {
	if key == VarResources {
		r := map[string]any{}
		for k, x := range v.Resources {
			r[k] = x
		}
		if v.ResourcesCustom != nil {
			c := make(map[string]any, len(v.ResourcesCustom))
			for k, x := range v.ResourcesCustom {
				c[k] = x
			}
			r["custom"] = c
		}
		return r
	}
	q := make(map[string]any, len(v.Quarantined))
	for topic, queue := range v.Quarantined {
		l := make([]any, len(queue))
		for i, e := range queue {
			state := "held"
			if e.Released {
				state = "released"
			}
			em := map[string]any{"messageId": e.MessageID, "state": state}
			putRaw(em, "message", e.Message)
			l[i] = em
		}
		q[topic] = l
	}
	return q
}
