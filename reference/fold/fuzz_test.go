package fold

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

var foldSeeds = []string{
	``,
	`[]`,
	`[{"id":"a","workflowId":"w","executionId":"x","eventType":"EXECUTION_STARTED","sequence":0,"timestamp":1,"payload":{"input":{"b":[1e21,-0,"\u2028"]}}}]`,
	`{"id":"a","workflowId":"w","executionId":"x","eventType":"EXECUTION_STARTED","sequence":0,"timestamp":1,"payload":{}}
{"id":"b","workflowId":"w","executionId":"x","eventType":"EXECUTION_SUSPENDED","sequence":1,"timestamp":2,"payload":{"on":"g","waits":[{"waitId":"w"}]}}
{"id":"c","workflowId":"w","executionId":"x","eventType":"STEP_FAILED","sequence":2,"timestamp":3,"payload":{"stepId":"s","error":"e","channel":"c","payload":1}}
{"id":"d","workflowId":"w","executionId":"x","eventType":"EXECUTION_RESUMED","sequence":3,"timestamp":4,"payload":null,"metadata":{"kernel":true,"flowEmit":"ab"}}`,
	`{"id":"a","workflowId":"w","executionId":"x","eventType":"DECISION_RECORDED","sequence":0,"timestamp":1,"payload":{"id":"__proto__","choice":1}}`,
	`{"id":"a","workflowId":"w","executionId":"x","eventType":"INBOX_QUARANTINED","sequence":0,"timestamp":1,"payload":{"topic":"t","messageId":"m"},"metadata":{"kernel":true}}
{"id":"b","workflowId":"w","executionId":"x","eventType":"INBOX_RELEASED","sequence":1,"timestamp":1,"payload":{"topic":"t","messageId":"m","auto":true,"deliver":true},"metadata":{"kernel":true}}`,
	`{"id":"a","workflowId":"w","executionId":"x","eventType":"X","sequence":1.5,"timestamp":1,"payload":{}}`,
	`[{"payload":[[[[[[[[[[]]]]]]]]]]}]`,
}

// Reference: DESIGN §4, I-FOLD-1 — the fold of arbitrary bytes never panics: it returns an
// *InputError or a state whose JSON is canonical and round-trips through ParseState.
func FuzzFold(f *testing.F) {
	for _, s := range foldSeeds {
		f.Add([]byte(s), uint8(0))
	}
	profiles := Profiles()
	f.Fuzz(func(t *testing.T, data []byte, pick uint8) {
		events, err := DecodeLogBytes(data)
		var ie *InputError
		if err != nil {
			if !errors.As(err, &ie) {
				t.Fatalf("fold/fuzz [I-FOLD-1]: DecodeLog error %T %v, want *InputError", err, err)
			}
			if _, err := FoldBytes(Current(), nil, data); err == nil {
				t.Fatalf("fold/fuzz [I-FOLD-1]: FoldBytes accepted what DecodeLog refused (%v)", ie)
			}
			return
		}
		p := profiles[int(pick)%len(profiles)]
		st, err := Fold(p, nil, events)
		one, err1 := FoldBytes(p, nil, data) // the one-pass path must agree
		if (err == nil) != (err1 == nil) || (err == nil && !Equal(st, one)) {
			t.Fatalf("fold/fuzz [S1.P2.replay-identical]: FoldBytes = %v, %v; DecodeLog+Fold = %v", one, err1, err)
		}
		if err != nil {
			if !errors.As(err, &ie) {
				t.Fatalf("fold/fuzz [I-FOLD-1]: Fold error %T %v, want *InputError", err, err)
			}
			return
		}
		b, err := st.MarshalJSON()
		if err != nil {
			t.Fatalf("fold/fuzz [S2.state.shape]: MarshalJSON = %v", err)
		}
		if ref, err := referenceStateJSON(st); err != nil || string(ref) != string(b) {
			t.Fatalf("fold/fuzz [S3.emit.canonical-form]: MarshalJSON = %s, want the reference encoding %s (%v)", b, ref, err)
		}
		c, err := CanonicalJSON(b)
		if err != nil || string(c) != string(b) {
			t.Fatalf("fold/fuzz [S3.emit.canonical-form]: state is not canonical:\n%s\n%s (%v)", b, c, err)
		}
		back, err := ParseState(b)
		if err != nil {
			t.Fatalf("fold/fuzz [I-FOLD-16]: ParseState(fold output) = %v\n%s", err, b)
		}
		if b2, _ := back.MarshalJSON(); string(b2) != string(b) {
			t.Fatalf("fold/fuzz [S4.snapshot.every-k]: state does not round-trip:\n%s\n%s", b, b2)
		}
		// Snapshot at the middle plus the tail equals the whole (same profile).
		if k := len(events) / 2; k > 0 {
			snap, err := Fold(p, nil, events[:k])
			if err != nil {
				t.Fatalf("fold/fuzz: Fold(prefix) = %v", err)
			}
			got, err := Fold(p, &back, nil)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := Fold(p, &snap, events[k:])
			if err != nil {
				t.Fatal(err)
			}
			if g, w := string(must(got.MarshalJSON())), string(must(whole.MarshalJSON())); g != w {
				t.Fatalf("fold/fuzz [S4.snapshot.every-k]: Fold(snapshot@%d, tail) != Fold(all):\n%s\n%s", k, w, g)
			}
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Reference: DESIGN §3.3 — canonical JSON is idempotent, valid, agrees with encoding/json on
// validity, and denotes the same value.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,1e-7,-0,0.000001]}`, `"\ud800\u2028<>&"`, `{"\ud83d\ude00":1,"\ufb33":2}`, `[1,2`, `{"a":1,"a":2}`, `1e400`, `"\xff"`, ` null `, `[0.87,0.000001,0.0000001,1.10,-0.5,123456789.123456,0.1234567890123456]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The state encoder's leaf path (copy what is already canonical) agrees with the transcoder.
		for _, depth := range []int{0, 3, MaxDepth - 1} {
			fast, ferr := appendRawLeaf(nil, data, depth)
			slow, serr := appendCanonicalRawMessage(nil, data, depth)
			if (ferr == nil) != (serr == nil) || string(fast) != string(slow) {
				t.Fatalf("fold/fuzz-canonical [S3.emit.canonical-form]: leaf %q at depth %d: copied %q (%v), transcoded %q (%v)", data, depth, fast, ferr, slow, serr)
			}
		}
		c, err := CanonicalJSON(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("fold/fuzz-canonical [S3.emit.canonical-form]: CanonicalJSON(%q) err = %v, json.Valid = %v", data, err, json.Valid(data))
		}
		if err != nil {
			return
		}
		if !json.Valid(c) {
			t.Fatalf("fold/fuzz-canonical: CanonicalJSON(%q) = %q, not valid JSON", data, c)
		}
		c2, err := CanonicalJSON(c)
		if err != nil || string(c2) != string(c) {
			t.Fatalf("fold/fuzz-canonical [S3.emit.canonical-form]: not idempotent: %q -> %q -> %q (%v)", data, c, c2, err)
		}
		var a, b any
		if json.Unmarshal(data, &a) == nil {
			if err := json.Unmarshal(c, &b); err != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("fold/fuzz-canonical [S3.emit.canonical-form]: value changed: %q (%#v) -> %q (%#v) %v", data, a, c, b, err)
			}
		}
	})
}
