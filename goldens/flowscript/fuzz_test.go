package flowscript

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecode: any input is either a valid script whose machine steps without error to its first
// action, or a *Error naming the file — never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(allSyscalls))
	f.Add([]byte(`{"format":"loom-flowscript/1","id":"f","body":[{"op":"parallel","branches":[[{"op":"emit","eventType":"e","payload":{"$ref":"input/a/0"}}]]}]}`))
	f.Add([]byte(`{"format":"loom-flowscript/1","id":"f","body":[{"op":"execute","id":"a","tool":"echo","bind":"x"}],"return":{"$ref":"x/~1"}}`))
	f.Add([]byte(`{"format":"loom-flowscript/2","id":"f","body":[{"op":"execute","id":"a","tool":"echo","input":{"latencyUs":5}},{"op":"emit","eventType":"e","payload":[{"$float":"NaN"},{"$float":"-Infinity"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("fuzz.json", data)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) || fe.File != "fuzz.json" {
				t.Fatalf("Decode = %v (%T), want a *Error naming the file", err, err)
			}
			return
		}
		m := NewMachine(TopScope(s, json.RawMessage(`{"a":[1]}`)))
		for i := 0; i < 50; i++ {
			a, err := m.Action()
			if err != nil || a.Kind == ActDone || a.Kind == ActFail {
				return // an unresolvable pointer into an answer is a run-time error, not a panic
			}
			if err := m.Answer(Answer{Value: json.RawMessage(`{"k":[0]}`)}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzDecodeDriver: any input is a valid driver or a *Error naming the file.
func FuzzDecodeDriver(f *testing.F) {
	f.Add([]byte(`{"format":"loom-driver/1","actions":[{"do":"crash","at":2},{"do":"start","input":1},{"do":"verdict","stepId":"s","attempt":1,"verdict":"applied"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := DecodeDriver("d.json", data); err != nil {
			var fe *Error
			if !errors.As(err, &fe) || fe.File == "" {
				t.Fatalf("DecodeDriver = %v (%T), want a *Error naming the file", err, err)
			}
		}
	})
}
