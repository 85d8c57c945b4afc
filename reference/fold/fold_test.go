package fold

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §4 fold contract — an unknown event type is inert.
func TestUnknownTypesInert(t *testing.T) {
	base := []ev{{"EXECUTION_STARTED", started, ""}, {"STEP_STARTED", `{"stepId":"a","attempt":1,"input":1}`, ""}}
	with := append(append([]ev{}, base...), ev{"NOT_A_KERNEL_TYPE", `{"stepId":"a","status":"failed"}`, ""},
		ev{"progress", `[1,2]`, `{"kernel":true}`}, ev{"SNAPSHOT_TAKEN", `{"state":{"status":"completed"}}`, ""})
	a, b := foldJSON(t, Current(), base...), foldJSON(t, Current(), with...)
	// Only sequence and updatedAt move.
	a["sequence"], a["updatedAt"] = b["sequence"], b["updatedAt"]
	diff(t, "fold/unknown-inert", []string{"S4.fold.unknown-inert"}, "Fold(log + unknown types)", a, b)
	if b["sequence"] != 4.0 {
		t.Errorf("fold/unknown-inert [S4.fold.unknown-inert]: sequence = %v, want 4 (unknown envelopes count)", b["sequence"])
	}
}

// Reference: spec §4 fold hardening — a __proto__ container key is rejected; the envelope changes
// nothing but sequence and updatedAt.
func TestProtoKeysRejected(t *testing.T) {
	pre := []ev{{"EXECUTION_STARTED", started, ""}, {"EXECUTION_SUSPENDED", `{"on":"g"}`, ""}}
	for name, bad := range map[string]ev{
		"stepId started":   {"STEP_STARTED", `{"stepId":"__proto__","attempt":1}`, ""},
		"stepId completed": {"STEP_COMPLETED", `{"stepId":"__proto__","output":1}`, ""},
		"stepId failed":    {"STEP_FAILED", `{"stepId":"__proto__","error":"x"}`, ""},
		"stepId retrying":  {"STEP_RETRYING", `{"stepId":"__proto__","attempt":2}`, ""},
		"stepId cancelled": {"STEP_CANCELLED", `{"stepId":"__proto__"}`, ""},
		"decision id":      {"DECISION_RECORDED", `{"id":"__proto__","choice":1}`, ""},
		"digest":           {"progress", `{}`, `{"flowEmit":"__proto__"}`},
		"digest on step":   {"STEP_STARTED", `{"stepId":"s","attempt":1}`, `{"flowEmit":"__proto__"}`},
		"topic consumed":   {"MESSAGE_CONSUMED", `{"topic":"__proto__","messageId":"m"}`, `{"kernel":true}`},
		"wait consumed":    {"MESSAGE_CONSUMED", `{"topic":"t","messageId":"m","waitId":"__proto__"}`, `{"kernel":true}`},
		"topic held":       {"INBOX_QUARANTINED", `{"topic":"__proto__","messageId":"m"}`, `{"kernel":true}`},
		"wait resume":      {"EXECUTION_RESUMED", `{"waitId":"__proto__","answer":1}`, `{"kernel":true}`},
		"scope":            {"PARALLEL_COMPLETED", `{"scopeId":"__proto__"}`, `{"kernel":true}`},
		"wait in park":     {"EXECUTION_SUSPENDED", `{"on":"h","waits":[{"waitId":"__proto__"}]}`, ""},
		"custom dimension": {"RESOURCE_METERED", `{"tokens":1,"custom":{"__proto__":1}}`, ""},
		"carry topic":      {"EXECUTION_STARTED", `{"input":2,"carry":{"inbox":{"__proto__":{"count":1,"last":"m"}}}}`, ""},
	} {
		a := foldJSON(t, Current(), pre...)
		b := foldJSON(t, Current(), append(append([]ev{}, pre...), bad)...)
		a["sequence"], a["updatedAt"] = b["sequence"], b["updatedAt"]
		diff(t, "fold/proto-rejected", []string{"S4.fold.proto-rejected"}, "Fold("+name+")", a, b)
	}
}

// Reference: spec §4 — status moves only by execution-level events; STEP_* folds into its frame only;
// STEP_FAILED never fails the execution (1.21.0).
func TestStepFailedNeverFailsExecution(t *testing.T) {
	m := foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""},
		ev{"STEP_STARTED", `{"stepId":"a","attempt":1,"input":1}`, ""},
		ev{"STEP_FAILED", `{"stepId":"a","error":"boom"}`, ""})
	if m["status"] != "running" {
		t.Errorf("fold/step-failed-not-fatal [S4.fold.step-failed-not-fatal S4.v1_21.caught-step-failure-running]: status = %v, want running", m["status"])
	}
	if _, ok := vars(m)["_error"]; ok {
		t.Errorf("fold/step-failed-not-fatal [S4.fold.step-frame-only]: _error present, want absent")
	}
	if f := frame(m, "a"); f["status"] != "failed" || f["error"] != "boom" {
		t.Errorf("fold/step-failed-not-fatal [S4.fold.step-frame-only]: frame a = %v, want failed with error boom", f)
	}
	// As 1.20.0 the same log fails the execution, as that version did.
	m = foldJSON(t, MustProfile("1.20.0"), ev{"EXECUTION_STARTED", started, ""},
		ev{"STEP_FAILED", `{"stepId":"a","error":"boom"}`, ""})
	if m["status"] != "failed" {
		t.Errorf("fold/profile-1.20 [S4.v1_21.caught-step-failure-running]: Fold(1.20.0) status = %v, want failed", m["status"])
	}
	// Only EXECUTION_FAILED fails it.
	m = foldJSON(t, Current(), ev{"EXECUTION_STARTED", started, ""}, ev{"EXECUTION_FAILED", `{"error":"e"}`, ""})
	if m["status"] != "failed" || vars(m)["_error"] != "e" {
		t.Errorf("fold/execution-failed [S4.fold.status-execution-only]: got status %v _error %v, want failed, e", m["status"], vars(m)["_error"])
	}
}

// Reference: spec §4 — _failedWhileParked is set by a STEP_FAILED while suspended and removed by
// whatever ends the park; a null resume under it is status-only.
func TestFailedWhileParked(t *testing.T) {
	parked := []ev{{"EXECUTION_STARTED", started, ""}, {"EXECUTION_SUSPENDED", `{"on":"approve"}`, ""},
		{"STEP_FAILED", `{"stepId":"sib","error":"x"}`, ""}}
	m := foldJSON(t, Current(), parked...)
	if m["status"] != "suspended" || vars(m)["_failedWhileParked"] != true {
		t.Fatalf("fold/failed-while-parked [S4.fold.failed-while-parked-set S4.v1_21.caught-step-failure-running]: status %v flag %v, want suspended, true",
			m["status"], vars(m)["_failedWhileParked"])
	}
	for _, end := range []ev{
		{"EXECUTION_SUSPENDED", `{"on":"again"}`, ""}, {"EXECUTION_RESUMED", `{"ok":false}`, ""},
		{"EXECUTION_RESUMED", `null`, ""}, {"EXECUTION_COMPLETED", `{"output":1}`, ""},
		{"EXECUTION_FAILED", `{"error":1}`, ""}, {"EXECUTION_CANCELLED", `{}`, ""},
		{"EXECUTION_CONTINUED", `{"continuedTo":"y"}`, `{"kernel":true}`},
	} {
		m := foldJSON(t, Current(), append(append([]ev{}, parked...), end)...)
		if _, ok := vars(m)["_failedWhileParked"]; ok {
			t.Errorf("fold/failed-while-parked-cleared [S4.fold.failed-while-parked-cleared]: after %s %s the flag is still set", end.typ, end.payload)
		}
	}
	m = foldJSON(t, Current(), append(append([]ev{}, parked...), ev{"EXECUTION_RESUMED", `null`, ""})...)
	if _, ok := vars(m)["_resumePayloads"]; ok || m["status"] != "running" {
		t.Errorf("fold/null-resume-parked-failure [S4.fold.null-resume-after-parked-failure]: _resumePayloads %v status %v, want absent, running",
			vars(m)["_resumePayloads"], m["status"])
	}
	m = foldJSON(t, Current(), append(append([]ev{}, parked...), ev{"EXECUTION_RESUMED", `{"ok":false}`, ""})...)
	diff(t, "fold/resume-after-parked-failure", []string{"S4.v1_16.resume-payloads"}, "_resumePayloads", []any{map[string]any{"ok": false}}, vars(m)["_resumePayloads"])
}

// Reference: spec §4 1.16.0, 1.20.0, 1.23.0 — which resumes add a gate passthrough.
func TestNullResume(t *testing.T) {
	type tc struct {
		name string
		p    Profile
		log  []ev
		want []any // _resumePayloads; nil = absent
	}
	st := ev{"EXECUTION_STARTED", started, ""}
	null := ev{"EXECUTION_RESUMED", `null`, ""}
	for _, c := range []tc{
		{"not parked", Current(), []ev{st, null}, nil},
		{"terminal (resumeAs)", Current(), []ev{st, {"EXECUTION_FAILED", `{"error":"e"}`, ""}, null}, nil},
		{"in doubt", Current(), []ev{st, {"EXECUTION_SUSPENDED", `{"on":"__loom_indoubt__"}`, ""}, null}, nil},
		{"diverged", Current(), []ev{st, {"EXECUTION_SUSPENDED", `{"on":"__loom_diverged__"}`, ""}, null}, nil},
		{"diverged as 1.22", MustProfile("1.22.0"), []ev{st, {"EXECUTION_SUSPENDED", `{"on":"__loom_diverged__"}`, ""}, null}, []any{nil}},
		{"parked gate", Current(), []ev{st, {"EXECUTION_SUSPENDED", `{"on":"approve"}`, ""}, null}, []any{nil}},
		{"non-null unparked", Current(), []ev{st, {"EXECUTION_RESUMED", `{"a":1}`, ""}}, []any{map[string]any{"a": 1.0}}},
		{"two gates", Current(), []ev{st, {"EXECUTION_SUSPENDED", `{"on":"a"}`, ""}, {"EXECUTION_RESUMED", `1`, ""},
			{"EXECUTION_SUSPENDED", `{"on":"b"}`, ""}, {"EXECUTION_RESUMED", `2`, ""}}, []any{1.0, 2.0}},
	} {
		m := foldJSON(t, c.p, c.log...)
		got, _ := vars(m)["_resumePayloads"].([]any)
		diff(t, "fold/null-resume", []string{"S4.v1_20.null-resume-no-passthrough", "S4.v1_16.resume-payloads", "S4.v1_23.diverged-null-status-only"},
			"_resumePayloads("+c.name+")", c.want, got)
		if m["status"] != "running" {
			t.Errorf("fold/null-resume [S4.v1_20.null-resume-no-passthrough]: %s: status %v, want running", c.name, m["status"])
		}
		if _, ok := vars(m)["_suspendedOn"]; ok {
			t.Errorf("fold/null-resume: %s: _suspendedOn kept after the park ended", c.name)
		}
	}
}

// Reference: spec §4 — every envelope counts toward sequence/updatedAt; the empty log's state.
func TestEmptyAndSequence(t *testing.T) {
	got := canon(t, Empty())
	want := `{"frames":{},"sequence":-1,"startedAt":null,"status":"pending","updatedAt":null,"variables":{}}`
	if got != want {
		t.Errorf("fold/state-shape [S2.state.shape]: Empty() = %s, want %s", got, want)
	}
}

// Reference: DESIGN §4 bad input — Fold refuses non-dense, out-of-order and mixed logs.
func TestFoldRefusesMalformedLogs(t *testing.T) {
	es := envs(0, ev{"EXECUTION_STARTED", started, ""}, ev{"STEP_STARTED", `{"stepId":"a"}`, ""}, ev{"X", `1`, ""})
	gap := append([]spiEnvelope{}, es...)
	gap[2].Sequence = 5
	mixed := append([]spiEnvelope{}, es...)
	mixed[1].ExecutionID = "other"
	badPayload := append([]spiEnvelope{}, es...)
	badPayload[1].Payload = json.RawMessage(`{"stepId":`)
	badMeta := append([]spiEnvelope{}, es...)
	badMeta[1].Metadata = json.RawMessage(`[1]`)
	start1 := envs(1, ev{"EXECUTION_STARTED", started, ""})
	for name, c := range map[string]struct {
		es    []spiEnvelope
		index int
		field string
	}{
		"gap": {gap, 2, "sequence"}, "mixed": {mixed, 1, "executionId"}, "payload": {badPayload, 1, "payload"},
		"metadata": {badMeta, 1, "metadata"}, "start at 1": {start1, 0, "sequence"},
	} {
		_, err := Fold(Current(), nil, c.es)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Index != c.index || ie.Field != c.field {
			t.Errorf("fold/bad-input [I-FOLD-1]: Fold(%s) = %v, want InputError at envelope %d field %s", name, err, c.index, c.field)
		}
	}
}

// Reference: spec §4 K5 — every type of the manifest's table has a handler (no type is inert at
// the current profile except by design), pinned against manifest.EventTypes().
func TestHandlerForEveryManifestType(t *testing.T) {
	shapes := map[string]bool{}
	for _, s := range EventShapes() {
		shapes[s.Name] = true
	}
	for _, e := range manifest.EventTypes() {
		if !shapes[e.Name] {
			t.Errorf("fold/catalogue [S4.log.known-types-pinned]: %s has no entry in EventShapes()", e.Name)
		}
		if handlers[e.Name] == nil {
			t.Errorf("fold/handlers [S4.log.known-types-pinned]: %s is not dispatched by the fold", e.Name)
		}
	}
}

type spiEnvelope = spi.Envelope
