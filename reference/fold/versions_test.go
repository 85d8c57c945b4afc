package fold

import (
	"testing"
)

const kernel = `{"kernel":true}`

// Reference: spec §4 1.15.0 — migratedInput replaces _input; a migration without it keeps _input.
func TestMigratedInput(t *testing.T) {
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"input":1}`, ""}, ev{"EXECUTION_MIGRATED", `{"toFlowHash":"h"}`, ""})
	if vars(m)["_input"] != 1.0 {
		t.Errorf("fold/migrated-input [S4.v1_15.migrated-input]: _input = %v, want 1 (no migratedInput)", vars(m)["_input"])
	}
	m = foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"input":1}`, ""}, ev{"EXECUTION_MIGRATED", `{"migratedInput":{"v":2},"toCodeHash":"c2"}`, ""})
	diff(t, "fold/migrated-input", []string{"S4.v1_15.migrated-input", "S4.v1_23.to-code-hash"}, "variables", map[string]any{"_input": map[string]any{"v": 2.0}, "_codeHash": "c2"}, vars(m))
}

// Reference: spec §4 1.17.0 — a typed failure folds errorChannel/errorPayload; untyped does not.
func TestTypedFailureFields(t *testing.T) {
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""}, ev{"STEP_STARTED", `{"stepId":"a","attempt":1,"input":5}`, ""},
		ev{"STEP_FAILED", `{"stepId":"a","error":"E","channel":"notFound","payload":{"id":7}}`, ""},
		ev{"STEP_FAILED", `{"stepId":"b","error":"E","channel":3,"payload":{"id":7}}`, ""})
	diff(t, "fold/typed-failure", []string{"S4.v1_17.typed-failure-fields", "S41.typed.record", "S4.v1_26.input-dropped-at-settle"}, "frame a",
		map[string]any{"stepId": "a", "status": "failed", "attempt": 1.0, "error": "E", "errorChannel": "notFound", "errorPayload": map[string]any{"id": 7.0}}, frame(m, "a"))
	diff(t, "fold/typed-failure", []string{"S4.v1_17.typed-failure-fields", "I-FOLD-9"}, "frame b (channel not a string)",
		map[string]any{"stepId": "b", "status": "failed", "attempt": 1.0, "error": "E"}, frame(m, "b"))
}

// Reference: spec §4 1.18.0, 1.23.0, 1.24.0 — decision entries: context/policy verbatim,
// innerSteps kernel-only, seq from the first record's envelope, not the payload.
func TestDecisions(t *testing.T) {
	log := []ev{{"EXECUTION_STARTED", started, ""},
		{"DECISION_RECORDED", `{"id":"r","choice":"a","seq":99,"context":{"x":[1,{"b":2,"a":1}]},"policy":{"name":"p","propensity":0.25}}`, ""},
		{"DECISION_RECORDED", `{"id":"k","choice":1,"innerSteps":["s1"]}`, kernel},
		{"DECISION_RECORDED", `{"id":"u","choice":1,"innerSteps":["s1"]}`, ""},
		{"DECISION_RECORDED", `{"id":"r","choice":"b"}`, ""}}
	m := foldJSON(t, Current(), log...)
	diff(t, "fold/decisions", []string{"S4.v1_18.decision-context-policy", "S4.v1_24.decision-seq", "S4.v1_23.inner-steps-kernel-only", "I-FOLD-12"}, "_decisions",
		map[string]any{
			"r": map[string]any{"choice": "b", "seq": 1.0},
			"k": map[string]any{"choice": 1.0, "seq": 2.0, "innerSteps": []any{"s1"}},
			"u": map[string]any{"choice": 1.0, "seq": 3.0},
		}, vars(m)["_decisions"])
	m = foldJSON(t, Current(), log[:2]...)
	diff(t, "fold/decisions", []string{"S4.v1_18.decision-context-policy"}, "_decisions.r",
		map[string]any{"choice": "a", "seq": 1.0, "context": map[string]any{"x": []any{1.0, map[string]any{"a": 1.0, "b": 2.0}}}, "policy": map[string]any{"name": "p", "propensity": 0.25}},
		vars(m)["_decisions"].(map[string]any)["r"])
	// As 1.23.0: no seq at all.
	m = foldJSON(t, MustProfile("1.23.0"), log...)
	for id, d := range vars(m)["_decisions"].(map[string]any) {
		if _, ok := d.(map[string]any)["seq"]; ok {
			t.Errorf("fold/profile-1.23 [S4.v1_24.decision-seq]: Fold(1.23.0) _decisions.%s has seq, want none", id)
		}
	}
	// A legacy (unstamped) entry in a snapshot stays unstamped on a repeat; normalisation never invents one.
	snap, _ := Fold(MustProfile("1.23.0"), nil, envs(0, log[:2]...))
	n := NormalizeSnapshotState(snap, MustProfile("1.23.0"))
	if n.Variables.Decisions["r"].HasSeq {
		t.Errorf("fold/legacy-seq [S4.v1_24.legacy-no-seq]: NormalizeSnapshotState invented a seq")
	}
	got, err := Fold(Current(), &n, envs(2, ev{"DECISION_RECORDED", `{"id":"r","choice":"c"}`, ""}))
	if err != nil || got.Variables.Decisions["r"].HasSeq {
		t.Errorf("fold/legacy-seq [S4.v1_24.mixed-fleet-unstamped]: a repeat of a legacy entry got seq (%v)", err)
	}
}

// Reference: spec §3/§4 1.19.0 — _flowEmits counts stamped envelopes of any type.
func TestFlowEmitsAnyType(t *testing.T) {
	d := `{"flowEmit":"00000000000000aa"}`
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""}, ev{"progress", `{"p":1}`, d}, ev{"progress", `{"p":1}`, d},
		ev{"RESOURCE_METERED", `{"tokens":1}`, `{"flowEmit":"00000000000000bb","seal":{"v":1,"cipher":"x","covers":[]}}`},
		ev{"ui", `{}`, `{"flowEmit":7}`}, ev{"ui", `{}`, ""})
	diff(t, "fold/flow-emits", []string{"S4.v1_19.flow-emits-any-type", "S3.emit.fold-count", "S4.v1_25.seal-ignored", "I-FOLD-4"}, "_flowEmits",
		map[string]any{"00000000000000aa": 2.0, "00000000000000bb": 1.0}, vars(m)["_flowEmits"])
}

// Reference: spec §4 1.22.0 — EVENTS_REHOMED is audit into _lifecycle; unknown before 1.22.0.
func TestEventsRehomed(t *testing.T) {
	log := []ev{{"EXECUTION_STARTED", started, ""}, {"EVENTS_REHOMED", `{"segment":1,"from":"a"}`, ""}, {"EVENTS_REHOMED", `"x"`, ""}}
	m := foldJSON(t, Current(), log...)
	diff(t, "fold/events-rehomed", []string{"S4.v1_22.events-rehomed-audit"}, "_lifecycle", []any{map[string]any{"from": "a", "segment": 1.0}, "x"}, vars(m)["_lifecycle"])
	m = foldJSON(t, MustProfile("1.21.0"), log...)
	if _, ok := vars(m)["_lifecycle"]; ok {
		t.Errorf("fold/profile-1.21 [S4.v1_22.events-rehomed-audit]: Fold(1.21.0) has _lifecycle, want none")
	}
}

// Reference: spec §4 1.23.0 — the Wave 2 set folds only from kernel-stamped envelopes.
func TestWave2KernelStamp(t *testing.T) {
	start := ev{"EXECUTION_STARTED", `{"input":1,"codeHash":"sha256:c","principal":{"sub":"u"},"parent":"p0","chain":["a"],` +
		`"carry":{"resources":{"tokens":3,"custom":{"gpu":1}},"inbox":{"orders":{"count":2,"last":"m2"}}}}`, ""}
	facts := []ev{
		{"EXECUTION_SUSPENDED", `{"on":"sel","waits":[{"waitId":"w1","topic":"t"},{"waitId":"w2"},{"nope":1}]}`, ""},
		{"MESSAGE_CONSUMED", `{"topic":"orders","messageId":"m3","waitId":"w1","message":{"n":1}}`, kernel},
		{"EXECUTION_RESUMED", `{"waitId":"w2","answer":"yes"}`, kernel},
		{"PARALLEL_COMPLETED", `{"scopeId":"p1","branches":2}`, kernel},
		{"RESOURCE_METERED", `{"tokens":2,"ms":-1,"costUsd":0.5,"custom":{"gpu":2.5}}`, ""},
		{"OUTCOME_RECORDED", `{"score":1,"recordedBy":"g","late":true}`, ""},
		{"EXECUTION_CONTINUED", `{"continuedTo":"exec-2"}`, kernel},
	}
	m := foldJSON(t, Current(), append([]ev{start}, facts...)...)
	want := map[string]any{
		"_input": 1.0, "_codeHash": "sha256:c", "_principal": map[string]any{"sub": "u"}, "_parent": "p0", "_chain": []any{"a"},
		"_resources":   map[string]any{"tokens": 5.0, "costUsd": 0.5, "custom": map[string]any{"gpu": 3.5}},
		"_inbox":       map[string]any{"orders": map[string]any{"count": 3.0, "last": "m3"}},
		"_waitAnswers": map[string]any{"w1": map[string]any{"n": 1.0}, "w2": "yes"},
		"_scopes":      map[string]any{"p1": map[string]any{"scopeId": "p1", "branches": 2.0}},
		"_continuedTo": "exec-2",
	}
	diff(t, "fold/wave2", []string{"S4.v1_23.started-fields", "S4.v1_23.message-consumed", "S4.v1_23.wait-addressed-resume", "S4.v1_23.parallel-scopes",
		"S4.v1_23.metered-custom", "S4.v1_23.continued", "S4.v1_23.code-hash", "I-FOLD-5", "I-FOLD-7", "I-FOLD-8", "I-FOLD-15"}, "variables", want, vars(m))
	if m["status"] != "continued" {
		t.Errorf("fold/wave2 [S4.v1_23.continued I-FOLD-18]: status = %v, want continued", m["status"])
	}
	// The same facts unstamped are no-ops (an application event of the same name).
	var unstamped []ev
	for _, f := range facts {
		if f.meta == kernel {
			f.meta = ""
		}
		unstamped = append(unstamped, f)
	}
	m = foldJSON(t, Current(), append([]ev{start}, unstamped...)...)
	v := vars(m)
	for _, k := range []string{"_waitAnswers", "_scopes", "_continuedTo"} {
		if _, ok := v[k]; ok {
			t.Errorf("fold/wave2-kernel-only [S4.v1_23.kernel-stamp-only]: unstamped facts wrote %s", k)
		}
	}
	diff(t, "fold/wave2-kernel-only", []string{"S4.v1_23.kernel-stamp-only"}, "_inbox", map[string]any{"orders": map[string]any{"count": 2.0, "last": "m2"}}, v["_inbox"])
	if m["status"] != "running" {
		t.Errorf("fold/wave2-kernel-only [S4.v1_23.kernel-stamp-only]: status = %v, want running (unstamped continued is a no-op)", m["status"])
	}
	diff(t, "fold/wave2-kernel-only", []string{"S4.v1_23.wait-addressed-resume"}, "_resumePayloads",
		[]any{map[string]any{"waitId": "w2", "answer": "yes"}}, v["_resumePayloads"])
	// As 1.22.0 none of the Wave 2 fields fold.
	m = foldJSON(t, MustProfile("1.22.0"), append([]ev{start}, facts...)...)
	diff(t, "fold/profile-1.22", []string{"S4.v1_23.started-fields", "S4.replay.byte-identical-unaffected"}, "variables",
		map[string]any{"_input": 1.0, "_resources": map[string]any{"tokens": 2.0, "costUsd": 0.5}, "_resumePayloads": []any{map[string]any{"waitId": "w2", "answer": "yes"}}}, vars(m))
}

// Reference: spec §4 1.23.0 — fork lineage from metadata on a kernel-stamped start.
func TestForkMetadata(t *testing.T) {
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"input":0}`, `{"kernel":true,"forkChain":["e0","e1"],"forkedBy":"e1"}`})
	diff(t, "fold/fork-metadata", []string{"S4.v1_23.metadata-keys", "I-FOLD-7"}, "variables",
		map[string]any{"_input": 0.0, "_chain": []any{"e0", "e1"}, "_parent": "e1"}, vars(m))
	m = foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"input":0}`, `{"forkChain":["e0"],"forkedBy":"e1"}`})
	diff(t, "fold/fork-metadata", []string{"S4.v1_23.metadata-keys", "S4.v1_23.kernel-stamp-only"}, "variables (unstamped)", map[string]any{"_input": 0.0}, vars(m))
}

// Reference: spec §4 1.25.0 — quarantine: kernel-only, exactly one of operator/auto, auto only
// with deliver, order-preserving release, MESSAGE_CONSUMED drops the released head, 1 024 bound.
func TestQuarantine(t *testing.T) {
	q := func(id string) ev {
		return ev{"INBOX_QUARANTINED", `{"topic":"t","messageId":"` + id + `","message":{"id":"` + id + `"}}`, kernel}
	}
	rel := func(id, extra string) ev {
		return ev{"INBOX_RELEASED", `{"topic":"t","messageId":"` + id + `"` + extra + `}`, kernel}
	}
	base := []ev{{"EXECUTION_STARTED", started, ""}, q("a"), q("b"), q("a")}
	type entry = map[string]any
	held := func(id string) entry { return entry{"messageId": id, "state": "held", "message": entry{"id": id}} }
	released := func(id string) entry { return entry{"messageId": id, "state": "released", "message": entry{"id": id}} }
	for _, c := range []struct {
		name string
		tail []ev
		want any
	}{
		{"held", nil, entry{"t": []any{held("a"), held("b")}}},
		{"both operator and auto ignored", []ev{rel("a", `,"operator":"o","auto":true,"deliver":true`)}, entry{"t": []any{held("a"), held("b")}}},
		{"neither ignored", []ev{rel("a", `,"deliver":true`)}, entry{"t": []any{held("a"), held("b")}}},
		{"auto without deliver ignored", []ev{rel("a", `,"auto":true`)}, entry{"t": []any{held("a"), held("b")}}},
		{"not the head ignored", []ev{rel("b", `,"operator":"o","deliver":true`)}, entry{"t": []any{held("a"), held("b")}}},
		{"unstamped ignored", []ev{{"INBOX_RELEASED", `{"topic":"t","messageId":"a","operator":"o","deliver":true}`, ""}}, entry{"t": []any{held("a"), held("b")}}},
		{"operator deliver", []ev{rel("a", `,"operator":"o","deliver":true`)}, entry{"t": []any{released("a"), held("b")}}},
		{"auto deliver", []ev{rel("a", `,"auto":true,"deliver":true`)}, entry{"t": []any{released("a"), held("b")}}},
		{"second release waits", []ev{rel("a", `,"auto":true,"deliver":true`), rel("b", `,"auto":true,"deliver":true`)}, entry{"t": []any{released("a"), held("b")}}},
		{"operator discard", []ev{rel("a", `,"operator":"o"`)}, entry{"t": []any{held("b")}}},
		{"consumed drops released", []ev{rel("a", `,"operator":"o","deliver":true`), {"MESSAGE_CONSUMED", `{"topic":"t","messageId":"a"}`, kernel}}, entry{"t": []any{held("b")}}},
		{"consumed keeps held", []ev{{"MESSAGE_CONSUMED", `{"topic":"t","messageId":"a"}`, kernel}}, entry{"t": []any{held("a"), held("b")}}},
		{"emptied", []ev{rel("a", `,"operator":"o"`), rel("b", `,"operator":"o"`)}, nil},
	} {
		m := foldJSON(t, Current(), append(append([]ev{}, base...), c.tail...)...)
		diff(t, "fold/quarantine", []string{"S4.v1_25.quarantine-kernel-only", "S4.v1_25.release-exactly-one", "S4.v1_25.quarantined-shape", "S4.v1_25.consumed-drops-released", "I-FOLD-10"},
			"_quarantined("+c.name+")", c.want, vars(m)["_quarantined"])
	}
	// Before 1.25.0 the kinds are unknown.
	m := foldJSON(t, MustProfile("1.24.0"), base...)
	if _, ok := vars(m)["_quarantined"]; ok {
		t.Errorf("fold/profile-1.24 [S4.v1_25.byte-identical]: Fold(1.24.0) has _quarantined")
	}
	// The bound: at most MaxQuarantined entries per topic.
	log := []ev{{"EXECUTION_STARTED", started, ""}}
	for i := range MaxQuarantined + 5 {
		log = append(log, ev{"INBOX_QUARANTINED", `{"topic":"t","messageId":"m` + itoa(i) + `"}`, kernel})
	}
	st, err := Fold(Current(), nil, envs(0, log...))
	if err != nil || len(st.Variables.Quarantined["t"]) != MaxQuarantined {
		t.Errorf("fold/quarantine-bound [S4.v1_25.quarantined-shape]: %d entries (%v), want %d", len(st.Variables.Quarantined["t"]), err, MaxQuarantined)
	}
	// The carry seeds _quarantined from 1.25.0.
	m = foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"carry":{"quarantined":{"t":[{"messageId":"x","state":"held"}]}}}`, ""})
	diff(t, "fold/carry-quarantined", []string{"S4.v1_25.carry-quarantined", "I-FOLD-5"}, "_quarantined", entry{"t": []any{entry{"messageId": "x", "state": "held"}}}, vars(m)["_quarantined"])
	m = foldJSON(t, Current(), ev{"EXECUTION_STARTED", `{"carry":{"quarantined":{"t":[{"messageId":"x","state":"held"},{"messageId":"y","state":"released"}]}}}`, ""})
	if _, ok := vars(m)["_quarantined"]; ok {
		t.Errorf("fold/carry-quarantined [I-FOLD-5]: a carry of shape held released was accepted")
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// Reference: spec §4 1.26.0 — input set by STEP_STARTED, kept by STEP_RETRYING, dropped at settle;
// before 1.26.0 a settled frame keeps it; normalizeSnapshotState strips it.
func TestFrameInput(t *testing.T) {
	log := []ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"a","attempt":1,"input":{"q":1}}`, ""},
		{"STEP_RETRYING", `{"stepId":"a","attempt":2,"error":"t"}`, ""}}
	m := foldJSON(t, Current(), log...)
	diff(t, "fold/frame-input", []string{"S4.v1_26.input-set-kept"}, "frame a (retrying)",
		map[string]any{"stepId": "a", "status": "retrying", "attempt": 2.0, "error": "t", "input": map[string]any{"q": 1.0}}, frame(m, "a"))
	for _, settle := range []ev{{"STEP_COMPLETED", `{"stepId":"a","output":2}`, ""}, {"STEP_FAILED", `{"stepId":"a","error":"x"}`, ""}, {"STEP_CANCELLED", `{"stepId":"a"}`, ""}} {
		full := append(append([]ev{}, log...), settle)
		m := foldJSON(t, Current(), full...)
		if _, ok := frame(m, "a")["input"]; ok {
			t.Errorf("fold/frame-input [S4.v1_26.input-dropped-at-settle]: after %s the frame keeps its input", settle.typ)
		}
		m = foldJSON(t, MustProfile("1.25.0"), full...)
		if _, ok := frame(m, "a")["input"]; !ok {
			t.Errorf("fold/profile-1.25 [S4.v1_26.input-dropped-at-settle]: Fold(1.25.0) after %s dropped the input, want kept", settle.typ)
		}
		old, _ := Fold(MustProfile("1.25.0"), nil, envs(0, full...))
		cur, _ := Fold(Current(), nil, envs(0, full...))
		if got, want := canon(t, NormalizeSnapshotState(old, MustProfile("1.25.0"))), canon(t, cur); got != want {
			t.Errorf("fold/normalize-input [S4.v1_26.normalize-strips-input]: NormalizeSnapshotState(1.25 snapshot) = %s, want %s", got, want)
		}
	}
}

// Reference: spec §4 1.21.0 — NormalizeSnapshotState reads a pre-1.21 snapshot.
func TestNormalizePre121(t *testing.T) {
	p120 := MustProfile("1.20.0")
	for _, c := range []struct {
		name string
		log  []ev
	}{
		{"caught step failure", []ev{{"EXECUTION_STARTED", started, ""}, {"STEP_FAILED", `{"stepId":"a","error":"x"}`, ""}}},
		{"parked sibling failure", []ev{{"EXECUTION_STARTED", started, ""}, {"EXECUTION_SUSPENDED", `{"on":"g"}`, ""}, {"STEP_FAILED", `{"stepId":"a","error":"x"}`, ""}}},
		{"genuine failure", []ev{{"EXECUTION_STARTED", started, ""}, {"EXECUTION_FAILED", `{"error":"e"}`, ""}}},
	} {
		old, _ := Fold(p120, nil, envs(0, c.log...))
		cur, _ := Fold(Current(), nil, envs(0, c.log...))
		if got, want := canon(t, NormalizeSnapshotState(old, p120)), canon(t, cur); got != want {
			t.Errorf("fold/normalize-pre-1.21 [S4.snapshot.normalize-pre-1.21 I-FOLD-13]: %s: NormalizeSnapshotState = %s, want %s", c.name, got, want)
		}
		// A current snapshot is left alone by the pre-1.21 rule.
		if got, want := canon(t, NormalizeSnapshotState(cur, Current())), canon(t, cur); got != want {
			t.Errorf("fold/normalize-current [I-FOLD-13]: %s: NormalizeSnapshotState(current) = %s, want unchanged %s", c.name, got, want)
		}
	}
}

// Reference: spec §4 1.21.0, I-FOLD-20 — a late sibling STEP_FAILED after EXECUTION_COMPLETED or
// EXECUTION_CANCELLED leaves a 1.20 snapshot byte-identical to that of a caught step failure, while
// the current fold of the two logs differs: no normaliser can read both, so the shape is a
// documented exception by interpretation, and NormalizeSnapshotState reads it as the caught failure.
func TestPre121LateStepFailureIndistinguishable(t *testing.T) {
	p120 := MustProfile("1.20.0")
	failS := ev{"STEP_FAILED", `{"stepId":"s","error":"late"}`, ""}
	for _, c := range []struct {
		name         string
		late, caught []ev
		wantLate     string
	}{
		{"after cancelled",
			[]ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"s","attempt":1}`, ""}, {"EXECUTION_CANCELLED", `{"reason":"op"}`, ""}, failS},
			[]ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"s","attempt":1}`, ""}, {"EXECUTION_RECOVERED", `{}`, ""}, failS},
			StatusCancelled},
		{"after completed",
			[]ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"s","attempt":1}`, ""}, {"EXECUTION_COMPLETED", `{"output":1}`, ""}, {"EXECUTION_RECOVERED", `{}`, ""}, failS},
			[]ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"s","attempt":1}`, ""}, {"EXECUTION_COMPLETED", `{"output":1}`, ""}, {"EXECUTION_RESUMED", `null`, ""}, failS},
			StatusCompleted},
	} {
		lateSnap, _ := Fold(p120, nil, envs(0, c.late...))
		caughtSnap, _ := Fold(p120, nil, envs(0, c.caught...))
		if a, b := canon(t, lateSnap), canon(t, caughtSnap); a != b {
			t.Fatalf("fold/pre-1.21-late-failure [I-FOLD-20]: %s: 1.20 snapshots differ (%s vs %s), want byte-identical", c.name, a, b)
		}
		lateCur, _ := Fold(Current(), nil, envs(0, c.late...))
		caughtCur, _ := Fold(Current(), nil, envs(0, c.caught...))
		if lateCur.Status != c.wantLate || caughtCur.Status != StatusRunning {
			t.Errorf("fold/pre-1.21-late-failure [I-FOLD-20 S4.fold.step-failed-not-fatal]: %s: current status = %s / %s, want %s / running", c.name, lateCur.Status, caughtCur.Status, c.wantLate)
		}
		if got, want := canon(t, NormalizeSnapshotState(caughtSnap, p120)), canon(t, caughtCur); got != want {
			t.Errorf("fold/pre-1.21-late-failure [S4.snapshot.normalize-pre-1.21 I-FOLD-20]: %s: NormalizeSnapshotState = %s, want the caught failure's %s", c.name, got, want)
		}
	}
}

// Reference: DESIGN §4 — profiles: every supported version parses and prints; others are refused.
func TestProfiles(t *testing.T) {
	for _, v := range []string{"1.20.0", "1.21.0", "1.22.0", "1.23.0", "1.24.0", "1.25.0", "1.26.0", "1.26.3"} {
		p, err := ProfileFor(v)
		if err != nil || p.Version()[:5] != v[:5] {
			t.Errorf("fold/profiles [I-FOLD-13]: ProfileFor(%s) = %v, %v", v, p, err)
		}
	}
	for _, v := range []string{"1.19.0", "1.27.0", "2.26.0", "x"} {
		if _, err := ProfileFor(v); err == nil {
			t.Errorf("fold/profiles [I-FOLD-13]: ProfileFor(%s) = nil error, want refused", v)
		}
	}
	if Current().Version() != "1.26.0" || (Profile{}).Version() != "1.26.0" || len(Profiles()) != 7 {
		t.Errorf("fold/profiles [S4.K5.version-and-set-together]: Current() = %s, zero = %s, %d profiles", Current(), Profile{}, len(Profiles()))
	}
}

// Reference: spec §3 snapshots, I-FOLD-16 — a state round-trips through its JSON form, and
// malformed snapshots are refused naming the field.
func TestStateRoundTrip(t *testing.T) {
	st, err := Fold(Current(), nil, envs(0, ev{"EXECUTION_STARTED", `{"input":{"b":[1,2],"a":"\u2028"},"carry":{"resources":{"tokens":1},"quarantined":{"t":[{"messageId":"x","state":"released"}]}}}`, ""},
		ev{"STEP_STARTED", `{"stepId":"s","attempt":1,"input":1}`, ""}, ev{"DECISION_RECORDED", `{"id":"d","choice":null}`, ""},
		ev{"EXECUTION_SUSPENDED", `{"on":"g","waits":[{"waitId":"w"}]}`, ""}, ev{"EXECUTION_RESUMED", `null`, ""},
		ev{"EVENTS_REHOMED", `{}`, ""}, ev{"x", `1`, `{"flowEmit":"d1"}`}, ev{"MESSAGE_CONSUMED", `{"topic":"t","messageId":"x","waitId":"w"}`, kernel}))
	if err != nil {
		t.Fatal(err)
	}
	b := canon(t, st)
	back, err := ParseState([]byte(b))
	if err != nil || canon(t, back) != b || !Equal(back, st) || Equal(back, Empty()) {
		t.Errorf("fold/state-round-trip [S2.state.shape I-FOLD-16]: ParseState(%s) = %s, %v", b, canon(t, back), err)
	}
	for _, bad := range []struct{ in, field string }{
		{`[]`, "snapshot"},
		{`{"status":"running","frames":{},"variables":{},"sequence":0,"startedAt":null,"updatedAt":null,"extra":1}`, "snapshot.extra"},
		{`{"status":"bogus","frames":{},"variables":{},"sequence":0,"startedAt":null,"updatedAt":null}`, "snapshot.status"},
		{`{"status":"running","frames":{},"variables":{},"sequence":1.5,"startedAt":null,"updatedAt":null}`, "snapshot.sequence"},
		{`{"status":"running","frames":{"__proto__":{}},"variables":{},"sequence":0,"startedAt":null,"updatedAt":null}`, "snapshot.frames.__proto__"},
		{`{"status":"running","frames":{"a":{"stepId":"b","status":"running","attempt":1}},"variables":{},"sequence":0,"startedAt":null,"updatedAt":null}`, "snapshot.frames.a.stepId"},
		{`{"status":"running","frames":{},"variables":{"_flowEmits":{"d":-1}},"sequence":0,"startedAt":null,"updatedAt":null}`, "snapshot.variables._flowEmits.d"},
		{`{"status":"running","frames":{},"variables":{"_decisions":{"d":{"seq":"1"}}},"sequence":0,"startedAt":null,"updatedAt":null}`, "snapshot.variables._decisions.d.seq"},
		{`{"status":"running","frames":{},"variables":{},"sequence":0,"startedAt":"now","updatedAt":null}`, "snapshot.startedAt"},
	} {
		_, err := ParseState([]byte(bad.in))
		ie, ok := err.(*InputError)
		if !ok || ie.Field != bad.field {
			t.Errorf("fold/snapshot-bad-input [I-FOLD-16]: ParseState(%s) = %v, want an InputError on %s", bad.in, err, bad.field)
		}
	}
}

// Reference: spec §4 1.23.0 — waits[] fold into _waits; the park's end removes them.
func TestSuspendedWaits(t *testing.T) {
	park := ev{"EXECUTION_SUSPENDED", `{"on":"sel","waits":[{"waitId":"w1","topic":"t"},{"waitId":"w2"},{"waitId":1},"x"]}`, ""}
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""}, park)
	diff(t, "fold/suspended-waits", []string{"S4.v1_23.suspended-waits", "I-FOLD-7"}, "_waits",
		map[string]any{"w1": map[string]any{"waitId": "w1", "topic": "t"}, "w2": map[string]any{"waitId": "w2"}}, vars(m)["_waits"])
	diff(t, "fold/suspended-waits", []string{"S4.v1_23.suspended-waits"}, "_suspendedOn", map[string]any{"on": "sel"}, vars(m)["_suspendedOn"])
	for _, next := range []ev{{"EXECUTION_SUSPENDED", `{"on":"g"}`, ""}, {"EXECUTION_RESUMED", `1`, ""}, {"EXECUTION_CANCELLED", `{}`, ""}} {
		m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""}, park, next)
		if _, ok := vars(m)["_waits"]; ok {
			t.Errorf("fold/suspended-waits [S4.v1_23.suspended-waits I-FOLD-7]: _waits kept after %s", next.typ)
		}
	}
	m = foldJSON(t, MustProfile("1.22.0"), ev{"EXECUTION_STARTED", started, ""}, park)
	if _, ok := vars(m)["_waits"]; ok {
		t.Errorf("fold/profile-1.22 [S4.v1_23.suspended-waits]: Fold(1.22.0) has _waits")
	}
}

// Reference: I-FOLD-2 — payloads a handler cannot read fold as no-ops; execution-level events
// still move the status.
func TestUnreadablePayloads(t *testing.T) {
	base := []ev{{"EXECUTION_STARTED", started, ""}}
	want := foldJSON(t, Current(), base...)
	for _, bad := range []ev{
		{"STEP_STARTED", `"s"`, ""}, {"STEP_COMPLETED", `{"stepId":7}`, ""}, {"STEP_FAILED", `[]`, ""},
		{"DECISION_RECORDED", `{"choice":1}`, ""}, {"RESOURCE_METERED", `{"tokens":"many","ms":-1,"costUsd":1e400}`, ""},
		{"MESSAGE_CONSUMED", `{"topic":"t"}`, kernel}, {"EXECUTION_CONTINUED", `{"continuedTo":null}`, kernel},
		{"INBOX_RELEASED", `{"topic":"t","messageId":"m","operator":"o"}`, kernel}, {"EXECUTION_MIGRATED", `null`, ""},
	} {
		got := foldJSON(t, Current(), append(append([]ev{}, base...), bad)...)
		want["sequence"], want["updatedAt"] = got["sequence"], got["updatedAt"]
		diff(t, "fold/unreadable-payload", []string{"I-FOLD-2"}, "Fold(+"+bad.typ+" "+bad.payload+")", want, got)
	}
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", `"no object"`, ""}, ev{"EXECUTION_SUSPENDED", `7`, ""})
	if m["status"] != "suspended" || m["startedAt"] == nil {
		t.Errorf("fold/unreadable-payload [I-FOLD-2]: execution-level events with unreadable payloads: status %v startedAt %v, want suspended and set", m["status"], m["startedAt"])
	}
}

// Reference: spec §4 — a log that uses none of the changed behaviours folds to the same bytes at
// every profile from 1.20.0 to 1.25.0 (1.26.0 drops settled inputs, so its bytes differ).
func TestByteIdenticalUnaffected(t *testing.T) {
	log := envs(0, ev{"EXECUTION_STARTED", `{"input":{"q":1}}`, ""},
		ev{"STEP_STARTED", `{"stepId":"a","attempt":1,"input":2}`, ""}, ev{"STEP_COMPLETED", `{"stepId":"a","output":3}`, ""},
		ev{"progress", `{"p":1}`, ""}, ev{"EXECUTION_SUSPENDED", `{"on":"approve"}`, ""}, ev{"EXECUTION_RESUMED", `{"ok":true}`, ""},
		ev{"STEP_STARTED", `{"stepId":"b","attempt":1,"input":4}`, ""}, ev{"STEP_FAILED", `{"stepId":"b","error":"x"}`, ""},
		ev{"EXECUTION_FAILED", `{"error":"x"}`, ""})
	var first string
	for _, p := range Profiles()[:6] {
		st, err := Fold(p, nil, log)
		if err != nil {
			t.Fatal(err)
		}
		if got := canon(t, st); first == "" {
			first = got
		} else if got != first {
			t.Errorf("fold/byte-identical [S4.replay.byte-identical-unaffected S4.v1_25.byte-identical]: Fold(%s) = %s, want %s", p, got, first)
		}
	}
}
