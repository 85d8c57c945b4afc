package flowscript

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Reference: I-GOLDEN-9, spec §3 unmatchable — a version 2 emit payload may hold {"$float": ...};
// the kernel gets the number, so the emit has no JSON form: persisted as null and never stamped,
// where the same emit with a plain payload is stamped. The marker is refused in a version 1 script,
// outside an emit payload and with an unknown name.
func TestNonJSONNumbers(t *testing.T) {
	const v2 = `{"format":"loom-flowscript/2","id":"f","body":`
	refused := []struct{ name, text, want string }{
		{"version 1", `{"format":"loom-flowscript/1","id":"f","body":[{"op":"emit","eventType":"e","payload":{"x":{"$float":"NaN"}}}]}`, `field "payload": a {"$float": ...} number needs format "loom-flowscript/2"`},
		{"execute input", v2 + `[{"op":"execute","id":"a","tool":"echo","input":{"$float":"NaN"}}]}`, `body[0]: field "input": a {"$float": ...} number is allowed only in an emit, stream or ui payload`},
		{"decide choice", v2 + `[{"op":"decide","id":"d","choice":[{"$float":"Infinity"}]}]}`, `field "choice"`},
		{"return", v2 + `[],"return":{"$float":"NaN"}}`, `field "return"`},
		{"unknown name", v2 + `[{"op":"emit","eventType":"e","payload":{"$float":"nan"}}]}`, `want "NaN", "Infinity" or "-Infinity"`},
	}
	for _, c := range refused {
		_, err := Decode("flow.json", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("flowscript/non-json %s: Decode = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	s, err := Decode("flow.json", []byte(v2+`[
	 {"op":"emit","eventType":"e","payload":{"c":1,"x":{"$float":"NaN"}}},
	 {"op":"emit","eventType":"e","payload":{"c":1,"x":1}},
	 {"op":"stream","eventType":"s","payload":[{"$float":"-Infinity"}]}]}`))
	if err != nil {
		t.Fatalf("flowscript/non-json: Decode = %v", err)
	}
	d := &Driver{Format: DriverFormat, Execution: "e1", Clock: DefaultClock, Actions: []DriverAction{{Do: "start"}}}
	run, err := RunDriver(context.Background(), s, d, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range run.Log {
		if e.EventType == "e" || e.EventType == "s" {
			stamped := strings.Contains(string(e.Metadata), "flowEmit")
			got = append(got, e.EventType+" "+string(e.Payload)+" stamped="+map[bool]string{true: "yes", false: "no"}[stamped])
		}
	}
	want := []string{`e null stamped=no`, `e {"c":1,"x":1} stamped=yes`, `s null stamped=no`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flowscript/non-json [S3.emit.unmatchable-unstamped I-GOLDEN-9]: emits in the log (-want +got):\n%s", diff)
	}
}

// Reference: I-GOLDEN-10 — input.latencyUs delays a fake but never changes what it answers: each
// fake run with and without it answers the same (echo returns its input, latencyUs included).
func TestFakeLatencyKeepsOutcome(t *testing.T) {
	body := func(lat string) string {
		return `{"format":"loom-flowscript/2","id":"f","body":[
		 {"op":"execute","id":"a","tool":"fail-typed","input":{"channel":"declined"` + lat + `},"errors":["declined"],"onError":"continue","bind":"a"},
		 {"op":"execute","id":"b","tool":"fail-untyped","input":{"message":"m"` + lat + `},"onError":"continue","bind":"b"},
		 {"op":"execute","id":"c","tool":"emit-from-effect","input":{"eventType":"fx","payload":1,"value":2` + lat + `},"bind":"c"},
		 {"op":"execute","id":"d","tool":"slow","input":{"ms":1,"value":3` + lat + `},"bind":"d"}],
		 "return":[{"$ref":"a/failed/kind"},{"$ref":"b/failed/message"},{"$ref":"c"},{"$ref":"d"}]}`
	}
	outputs := make([]string, 2)
	for i, lat := range []string{``, `,"latencyUs":200`} {
		s, err := Decode("flow.json", []byte(body(lat)))
		if err != nil {
			t.Fatal(err)
		}
		d := &Driver{Format: DriverFormat, Execution: "e1", Clock: DefaultClock, Actions: []DriverAction{{Do: "start"}}}
		run, err := RunDriver(context.Background(), s, d, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		outputs[i] = string(run.Results[0].Output)
	}
	if outputs[0] != outputs[1] || outputs[0] != `["typed","m",2,3]` {
		t.Errorf("flowscript/latency [I-GOLDEN-10]: outputs without and with latencyUs = %s, %s, want both [\"typed\",\"m\",2,3]", outputs[0], outputs[1])
	}
}

// Reference: I-GOLDEN-1 — Observe reports what the flow code sees, in its order: each answered
// call (with its branch), a decider that runs, a parallel's start and join.
func TestObserveReportsWhatFlowSees(t *testing.T) {
	s, err := Decode("flow.json", []byte(`{"format":"loom-flowscript/2","id":"f","body":[
	 {"op":"decide","id":"d","choice":1},
	 {"op":"parallel","branches":[[{"op":"execute","id":"a","tool":"echo"}],[{"op":"execute","id":"b","tool":"fail-untyped","onError":"continue"}]]},
	 {"op":"emit","eventType":"e"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	d := &Driver{Format: DriverFormat, Execution: "e1", Clock: DefaultClock, Actions: []DriverAction{{Do: "start"}}}
	_, err = RunDriver(context.Background(), s, d, RunOptions{Options: Options{Observe: func(o Observation) {
		mu.Lock()
		defer mu.Unlock()
		f, _ := json.Marshal(o.Answer.Failure)
		got = append(got, strings.Join([]string{o.Kind, o.Path, string(rune('0' + o.Branch)), string(f)}, " "))
	}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"decider body[0] 0 null", "answer body[0] 0 null",
		"parallel-begin body[1] 0 null",
		"answer body[1].branches[0][0] 1 null",
		`answer body[1].branches[1][0] 2 {"kind":"untyped","message":"fake: untyped failure"}`,
		"parallel-end body[1] 0 null",
		"answer body[2] 0 null",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flowscript/observe [I-GOLDEN-1]: observations (-want +got):\n%s", diff)
	}
}
