package fold

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// envelopeText builds an envelope with member k replaced by v ("" drops it).
func envelopeText(k, v string) string {
	members := []struct{ k, v string }{
		{"id", `"e0"`}, {"workflowId", `"wf"`}, {"executionId", `"x1"`}, {"eventType", `"EXECUTION_STARTED"`},
		{"sequence", `0`}, {"timestamp", `1000`}, {"payload", `{"input":1}`},
	}
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, m := range members {
		val := m.v
		if m.k == k {
			val = v
		}
		if val == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(`"` + m.k + `":` + val)
	}
	if k == "metadata" {
		b.WriteString(`,"metadata":` + v)
	}
	b.WriteByte('}')
	return b.String()
}

// decodeEntryPoints decodes a one-envelope log through every public entry point that reads
// envelopes and returns each one's error text ("" when it decodes).
func decodeEntryPoints(env string) map[string]string {
	msg := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	out := map[string]string{}
	_, err := DecodeEnvelope(0, []byte(env))
	out["DecodeEnvelope"] = msg(err)
	_, err = DecodeLogBytes([]byte("[" + env + "]"))
	out["DecodeLogBytes"] = msg(err)
	_, err = DecodeLog(strings.NewReader(env+"\n"), DecodeOptions{})
	out["DecodeLog"] = msg(err)
	_, err = FoldBytes(Current(), nil, []byte("["+env+"]"))
	out["FoldBytes"] = msg(err)
	_, err = FoldReader(Current(), nil, strings.NewReader("["+env+"]"), DecodeOptions{})
	out["FoldReader"] = msg(err)
	var l Envelopes
	err = json.Unmarshal([]byte(`{"events":[`+env+`]}`), &struct {
		Events *Envelopes `json:"events"`
	}{&l})
	out["Envelopes"] = msg(err)
	return out
}

// Reference: DESIGN §3.1, I-FOLD-22, I-FOLD-23 — one envelope decoder: every entry point refuses
// the same envelopes with the same message and kind, and reads integers by value.
func TestOneEnvelopeDecoder(t *testing.T) {
	for _, c := range []struct {
		member, value string
		want          string // the error text, "" = decodes
	}{
		{"sequence", "", "envelope 0: sequence: missing"},
		{"sequence", "null", "envelope 0: sequence: want a non-negative integer, got null"},
		{"sequence", `"0"`, `envelope 0: sequence: want a non-negative integer, got the string "0"`},
		{"sequence", "0.0", ""},
		{"sequence", "0e5", ""},
		{"sequence", "-0", ""},
		{"sequence", "0.5", "envelope 0: sequence: want a non-negative integer, got the number 0.5"},
		{"timestamp", "", "envelope 0: timestamp: missing"},
		{"timestamp", "null", "envelope 0: timestamp: want an integer (epoch milliseconds), got null"},
		{"timestamp", "1.7e12", ""},
		{"timestamp", "-5", ""},
		{"timestamp", "9007199254740991", ""},
		{"timestamp", "9007199254740992", "envelope 0: timestamp: want an integer (epoch milliseconds), got the number 9007199254740992"},
		{"timestamp", "1e400", "envelope 0: timestamp: want an integer (epoch milliseconds), got the number 1e400"},
		{"timestamp", "true", "envelope 0: timestamp: want an integer (epoch milliseconds), got a boolean"},
		{"id", "", "envelope 0: id: missing"},
		{"id", "7", "envelope 0: id: want a string, got the number 7"},
		{"workflowId", "null", "envelope 0: workflowId: want a string, got null"},
		{"executionId", "{}", "envelope 0: executionId: want a string, got an object"},
		{"eventType", "[]", "envelope 0: eventType: want a string, got an array"},
		{"payload", "", "envelope 0: payload: missing"},
		{"payload", "null", ""},
		{"metadata", "null", ""},
		{"metadata", "{}", ""},
		{"metadata", "[]", "envelope 0: metadata: want an object, got an array"},
	} {
		env := envelopeText(c.member, c.value)
		got := decodeEntryPoints(env)
		want := map[string]string{}
		for k := range got {
			want[k] = c.want
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("fold/one-envelope-decoder [S4.envelope.shape I-FOLD-22]: Decode(%s) errors (-want +got):\n%s", env, d)
		}
		if c.want == "" {
			continue
		}
		_, err := DecodeEnvelope(0, []byte(env))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Kind() != KindInvalidEnvelope || ie.Field != c.member {
			t.Errorf("fold/one-envelope-decoder [I-FOLD-23]: DecodeEnvelope(%s) = %#v, want kind %s on %s", env, err, KindInvalidEnvelope, c.member)
		}
	}
}

// Reference: I-FOLD-22 — integers are read by value, so 0.0 and 1e0 fold as 0 and 1.
func TestEnvelopeIntegersByValue(t *testing.T) {
	log := `[` + envelopeText("sequence", "0.0") + `,` +
		strings.Replace(envelopeText("sequence", "1e0"), `"EXECUTION_STARTED"`, `"progress"`, 1) + `]`
	st, err := FoldBytes(Current(), nil, []byte(log))
	if err != nil || st.Sequence != 1 {
		t.Fatalf("fold/one-envelope-decoder [I-FOLD-22]: FoldBytes(sequence 0.0, 1e0) = sequence %d, %v; want 1, nil", st.Sequence, err)
	}
	evs, err := DecodeEnvelope(3, []byte(" "+envelopeText("timestamp", "2.5e3")+"\n"))
	if err != nil || evs.Timestamp != 2500 {
		t.Errorf("fold/one-envelope-decoder [I-FOLD-22]: DecodeEnvelope(timestamp 2.5e3) = %d, %v; want 2500", evs.Timestamp, err)
	}
	for _, bad := range []string{`7`, `[]`, envelopeText("", "") + ` x`, ``} {
		_, err := DecodeEnvelope(3, []byte(bad))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Index != 3 || ie.Kind() != KindInvalidEnvelope {
			t.Errorf("fold/one-envelope-decoder [S4.envelope.shape]: DecodeEnvelope(%q) = %v, want an invalid-envelope InputError at 3", bad, err)
		}
	}
	var l Envelopes
	if err := json.Unmarshal([]byte(`[]`), &l); err != nil || l == nil || len(l) != 0 {
		t.Errorf("fold/one-envelope-decoder [S4.envelope.shape]: Envelopes.UnmarshalJSON([]) = %#v, %v; want empty non-nil", l, err)
	}
	if err := json.Unmarshal([]byte(`{}`), &l); err == nil {
		t.Errorf("fold/one-envelope-decoder [S4.envelope.shape]: Envelopes.UnmarshalJSON({}) = nil error, want refusal")
	}
}

// Reference: I-FOLD-23 — the rule a log breaks first decides the error: envelopes in order, and
// within one envelope its shape, then its sequence, then its executionId.
func TestErrorPrecedence(t *testing.T) {
	env := func(seq int, exec, extra string) string {
		return `{"id":"e","workflowId":"wf","executionId":"` + exec + `","eventType":"progress","sequence":` +
			itoa(seq) + `,"timestamp":1,"payload":{}` + extra + `}`
	}
	for _, c := range []struct {
		log, kind string
		index     int
	}{
		{"[" + env(0, "a", "") + "," + env(2, "b", "") + "]", KindSequence, 1},
		{"[" + env(0, "a", "") + "," + env(1, "b", "") + "," + env(9, "a", `,"metadata":1`) + "]", KindMixedExecutions, 1},
		{"[" + env(0, "a", "") + "," + env(5, "b", `,"metadata":1`) + "]", KindInvalidEnvelope, 1},
		{"[" + env(1, "a", "") + "," + env(0, "a", `,"metadata":1`) + "]", KindSequence, 0},
	} {
		_, err := FoldBytes(Current(), nil, []byte(c.log))
		var ie *InputError
		if !errors.As(err, &ie) || ie.Kind() != c.kind || ie.Index != c.index {
			t.Errorf("fold/error-precedence [I-FOLD-23]: FoldBytes(%s) = %v, want kind %s at envelope %d", c.log, err, c.kind, c.index)
		}
	}
	// The Go API reads metadata and payload lazily, yet reports a malformed envelope as such
	// before its sequence or executionId, as the decoding entry points do.
	ev := func(seq int64, exec, payload, meta string) spi.Envelope {
		e := spi.Envelope{ID: "e", WorkflowID: "wf", ExecutionID: exec, EventType: "progress", Sequence: seq, Payload: json.RawMessage(payload)}
		if meta != "" {
			e.Metadata = json.RawMessage(meta)
		}
		return e
	}
	for _, c := range []struct {
		name string
		log  []spi.Envelope
		kind string
	}{
		{"metadata not an object, sequence gap", []spi.Envelope{ev(0, "a", "{}", ""), ev(5, "a", "{}", "1")}, KindInvalidEnvelope},
		{"payload not JSON, sequence gap", []spi.Envelope{ev(0, "a", "{}", ""), ev(5, "a", "{", "")}, KindInvalidEnvelope},
		{"payload not JSON, another execution", []spi.Envelope{ev(0, "a", "{}", ""), ev(1, "b", "{", "")}, KindInvalidEnvelope},
		{"sequence gap, another execution", []spi.Envelope{ev(0, "a", "{}", ""), ev(5, "b", "{}", "")}, KindSequence},
		{"another execution", []spi.Envelope{ev(0, "a", "{}", ""), ev(1, "b", "{}", "")}, KindMixedExecutions},
	} {
		_, err := Fold(Current(), nil, c.log)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Kind() != c.kind || ie.Index != 1 {
			t.Errorf("fold/error-precedence [I-FOLD-23]: Fold(%s) = %v, want kind %s at envelope 1", c.name, err, c.kind)
		}
	}
}
