package fold

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// ev is a test event: type, payload and optional metadata as JSON texts.
type ev struct {
	typ, payload, meta string
}

func kev(typ, payload string) ev { return ev{typ, payload, `{"kernel":true}`} }

// envs builds one execution's dense envelopes from sequence start.
func envs(start int64, es ...ev) []spi.Envelope {
	out := make([]spi.Envelope, len(es))
	for i, e := range es {
		out[i] = spi.Envelope{
			ID: "e", WorkflowID: "w", ExecutionID: "x", EventType: e.typ,
			Sequence: start + int64(i), Timestamp: 1000 + start + int64(i), Payload: json.RawMessage(e.payload),
		}
		if e.meta != "" {
			out[i].Metadata = json.RawMessage(e.meta)
		}
	}
	return out
}

// foldJSON folds events as profile p from the empty state and returns the canonical state as a
// generic value for comparison.
func foldJSON(t *testing.T, p Profile, es ...ev) map[string]any {
	t.Helper()
	st, err := Fold(p, nil, envs(0, es...))
	if err != nil {
		t.Fatalf("Fold = %v", err)
	}
	return stateMap(t, st)
}

func stateMap(t *testing.T, st State) map[string]any {
	t.Helper()
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON = %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("state %s: %v", b, err)
	}
	return m
}

func canon(t *testing.T, st State) string {
	t.Helper()
	b, err := st.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON = %v", err)
	}
	return string(b)
}

// vars returns the state's variables map.
func vars(m map[string]any) map[string]any { return m["variables"].(map[string]any) }

func frame(m map[string]any, id string) map[string]any {
	f, _ := m["frames"].(map[string]any)[id].(map[string]any)
	return f
}

// diff fails with the failure grammar when want != got.
func diff(t *testing.T, check string, clauses []string, op string, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s %v: %s mismatch (-want +got):\n%s", check, clauses, op, d)
	}
}

const started = `{"input":{"n":1}}`
