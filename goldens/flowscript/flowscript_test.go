package flowscript

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/manifest"
)

// allSyscalls uses every one of the 13 syscalls of ABI 1.3.0 (Wave 2 under their flags).
const allSyscalls = `{"format":"loom-flowscript/1","id":"all","features":["continueAsNew","receive","select"],"body":[
 {"op":"execute","id":"a","tool":"echo","input":{"v":{"$ref":"input/n"}},"bind":"a"},
 {"op":"run","id":"b","tool":"echo","input":{"$ref":"a"}},
 {"op":"decide","id":"d","choice":{"$ref":"a/v"},"bind":"d"},
 {"op":"parallel","branches":[[{"op":"execute","id":"p","tool":"echo","input":1}],[{"op":"emit","eventType":"x.e","payload":{"$ref":"d"}}]]},
 {"op":"suspend","on":"approval","bind":"ok"},
 {"op":"sleep","ms":5},
 {"op":"sleepUntil","wakeAt":1700000001000},
 {"op":"emit","eventType":"x.emit","payload":{"$ref":"ok"}},
 {"op":"stream","eventType":"x.chunk","payload":"c"},
 {"op":"ui","eventType":"x.ui","payload":{"card":1}},
 {"op":"receive","topic":"t1","bind":"m"},
 {"op":"select","topics":["t1","t2"]},
 {"op":"continueAsNew","input":{"$ref":"m"}}
]}`

func TestScriptExpressesEverySyscall(t *testing.T) {
	s, err := Decode("all.json", []byte(allSyscalls))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, st := range s.Body {
		seen = append(seen, st.Op)
	}
	for _, sc := range manifest.Syscalls() {
		if !slices.Contains(seen, sc.Name) {
			t.Errorf("flowscript/every-syscall [S2.syscalls.available-iff-listed]: the script does not use %s", sc.Name)
		}
	}
	// Stepping the machine makes the calls in order with references resolved.
	m := NewMachine(TopScope(s, json.RawMessage(`{"n":7}`)))
	var calls []string
	for i := 0; i < 20; i++ {
		a, err := m.Action()
		if err != nil {
			t.Fatal(err)
		}
		if a.Kind == ActDone || a.Kind == ActFail {
			break
		}
		calls = append(calls, a.Syscall+" "+string(a.Args))
		var ans Answer
		switch a.Syscall {
		case "execute", "run":
			var args struct {
				Input json.RawMessage `json:"input"`
			}
			_ = json.Unmarshal(a.Args, &args)
			ans.Value = args.Input
		case "decide":
			var args struct {
				Choice json.RawMessage `json:"choice"`
			}
			_ = json.Unmarshal(a.Args, &args)
			ans.Value = args.Choice
		case "suspend":
			ans.Value = json.RawMessage(`{"yes":true}`)
		case "receive":
			ans.Value = json.RawMessage(`"msg"`)
		}
		if err := m.Answer(ans); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`execute {"input":{"v":7},"task":{"id":"a","toolId":"echo"}}`,
		`run {"input":{"v":7},"stepId":"b","toolId":"echo"}`,
		`decide {"choice":7,"id":"d"}`,
		`parallel {"branches":2}`,
		`suspend {"on":"approval"}`,
		`sleep {"ms":5}`,
		`sleepUntil {"wakeAt":1700000001000}`,
		`emit {"eventType":"x.emit","payload":{"yes":true}}`,
		`stream {"eventType":"x.chunk","payload":"c"}`,
		`ui {"eventType":"x.ui","payload":{"card":1}}`,
		`receive {"topic":"t1"}`,
		`select {"topics":["t1","t2"]}`,
		`continueAsNew {"input":"msg"}`,
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("flowscript/step: Machine calls (-want +got):\n%s", diff)
	}
}

func TestNextReplaysAnswers(t *testing.T) {
	s, err := Decode("f.json", []byte(`{"format":"loom-flowscript/1","id":"f","body":[
	 {"op":"execute","id":"a","tool":"fail-until","retry":2,"bind":"a"},
	 {"op":"execute","id":"b","tool":"fail-typed","onError":"continue","bind":"b"},
	 {"op":"execute","id":"c","tool":"fail-untyped"}],"return":{"a":{"$ref":"a"},"b":{"$ref":"b/failed/kind"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sc := TopScope(s, nil)
	untyped := Answer{Failure: &Failure{Kind: "untyped", Message: "x"}}
	steps := []struct {
		answers []Answer
		want    string
	}{
		{nil, "call execute a 1"},
		{[]Answer{untyped}, "call execute a 2"},
		{[]Answer{untyped, untyped}, "call execute a 3"},
		{[]Answer{untyped, untyped, untyped}, "fail"},
		{[]Answer{untyped, {Value: json.RawMessage(`1`)}}, "call execute b 1"},
		{[]Answer{{Value: json.RawMessage(`1`)}, {Failure: &Failure{Kind: "typed", Channel: "declined"}}}, "call execute c 1"},
		{[]Answer{{Value: json.RawMessage(`1`)}, {Failure: &Failure{Kind: "typed"}}, {Value: json.RawMessage(`3`)}}, `done {"a":1,"b":"typed"}`},
	}
	for i, st := range steps {
		a, err := Next(sc, st.answers)
		if err != nil {
			t.Fatal(err)
		}
		got := string(a.Kind)
		switch a.Kind {
		case ActCall:
			got += " " + a.Syscall + " " + a.Stmt.ID + " " + string(rune('0'+a.Attempt))
		case ActDone:
			got += " " + string(a.Output)
		}
		if got != st.want {
			t.Errorf("flowscript/next: Next(step %d) = %q, want %q", i, got, st.want)
		}
	}
}

func TestDecodeRefusesBadScripts(t *testing.T) {
	head := `{"format":"loom-flowscript/1","id":"f","body":`
	cases := []struct{ name, text, want string }{
		{"not json", `{`, "invalid JSON"},
		{"format", `{"format":"x","id":"f","body":[]}`, `field "format"`},
		{"unknown top field", `{"format":"loom-flowscript/1","id":"f","body":[],"extra":1}`, `field "extra": unknown field`},
		{"unknown syscall", head + `[{"op":"fork"}]}`, `body[0]: field "op": unknown syscall "fork"`},
		{"unbound name", head + `[{"op":"execute","id":"a","tool":"echo","input":{"$ref":"nope"}}]}`, `body[0]: field "input": reference to unbound name "nope"`},
		{"wrong arg type", head + `[{"op":"sleep","ms":"5"}]}`, `body[0]: field "ms": wrong type`},
		{"missing field", head + `[{"op":"suspend"}]}`, `body[0]: field "on": missing`},
		{"field of another op", head + `[{"op":"emit","eventType":"x","topic":"t"}]}`, `body[0]: field "topic": not a field of emit`},
		{"unknown fake", head + `[{"op":"execute","id":"a","tool":"rm-rf"}]}`, `body[0]: field "tool": unknown fake`},
		{"wave2 without flag", head + `[{"op":"receive","topic":"t"}]}`, `body[0]: field "op": receive is a Wave 2 syscall`},
		{"branch park", head + `[{"op":"parallel","branches":[[{"op":"suspend","on":"g"}]]}]}`, `body[0].branches[0]: field "op": suspend is not allowed`},
		{"sibling name", head + `[{"op":"parallel","branches":[[{"op":"execute","id":"a","tool":"echo","bind":"x"}],[{"op":"emit","eventType":"e","payload":{"$ref":"x"}}]]}]}`, `body[0].branches[1][0]: field "payload": reference to unbound name "x"`},
		{"proto key", head + `[{"op":"emit","eventType":"e","payload":{"__proto__":{"polluted":true}}}]}`, `"__proto__"`},
		{"deep nesting", head + `[{"op":"emit","eventType":"e","payload":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}]}`, "nested deeper"},
		{"null field", head + `[{"op":"execute","id":null,"tool":"echo"}]}`, `field "id": wrong type`},
		{"statement not object", head + `[1]}`, `body[0]: a statement is a JSON object`},
	}
	for _, c := range cases {
		_, err := Decode("flow.json", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "flow.json") {
			t.Errorf("flowscript/decode %s: Decode = %v, want an error naming flow.json and containing %q", c.name, err, c.want)
		}
	}
}

func TestDecodeDriverRefusesBadDrivers(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"format", `{"format":"x","actions":[{"do":"start"}]}`, `field "format"`},
		{"first not start", `{"format":"loom-driver/1","actions":[{"do":"recover"}]}`, `actions[0]: field "do": the first action must be start`},
		{"start twice", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"start"}]}`, `actions[1]: field "do": a driver starts its execution once`},
		{"unknown action", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"explode"}]}`, `actions[1]: field "do": unknown action`},
		{"missing field", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resume"}]}`, `actions[1]: field "eventType": missing`},
		{"wrong type", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"crash","at":"x"}]}`, `actions[1]: field "at": wrong type`},
		{"bad verdict", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"verdict","stepId":"s","attempt":1,"verdict":"maybe"}]}`, `field "verdict"`},
		{"bad profile", `{"format":"loom-driver/1","profile":"9.9.9","actions":[{"do":"start"}]}`, `field "profile"`},
		{"bad resumeAs flow", `{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resumeAs","flow":{"format":"loom-flowscript/1","id":"g","body":[{"op":"nope"}]}}]}`, `actions[1].flow: body[0]: field "op"`},
	}
	for _, c := range cases {
		_, err := DecodeDriver("driver.json", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("flowscript/driver %s: DecodeDriver = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestFakesAllRegistered(t *testing.T) {
	fx := Effects()
	for _, f := range Fakes() {
		d, ok := fx[f.Name]
		if !ok || d.Fn == nil {
			t.Errorf("flowscript/fakes: Effects()[%q] missing", f.Name)
			continue
		}
		if d.AtMostOnce != f.AtMostOnce || len(d.Errors) != len(f.Channels) {
			t.Errorf("flowscript/fakes: Effects()[%q] = atMostOnce %v, %d channels; want %v, %d", f.Name, d.AtMostOnce, len(d.Errors), f.AtMostOnce, len(f.Channels))
		}
	}
	if len(fx) != len(Fakes()) {
		t.Errorf("flowscript/fakes: %d effects for %d fakes", len(fx), len(Fakes()))
	}
}

// TestSchemasMatchDecoder holds the JSON Schemas beside this file equal to the decoder's tables:
// the same ops with the same fields and required fields, the same fakes, the same actions.
func TestSchemasMatchDecoder(t *testing.T) {
	type def struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	load := func(name string) map[string]def {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := map[string]def{}
		for k, v := range s.Defs {
			var d def
			_ = json.Unmarshal(v, &d)
			out[k] = d
		}
		return out
	}
	check := func(file, prefix, key string, table map[string][]string) {
		defs := load(file)
		for op, fields := range table {
			d, ok := defs[prefix+op]
			if !ok {
				t.Errorf("flowscript/schema: %s has no %s%s", file, prefix, op)
				continue
			}
			want, req := []string{key}, []string{key}
			if prefix == "op." {
				want = append(want, "bind")
			}
			for _, f := range fields {
				n := strings.TrimSuffix(f, "!")
				want = append(want, n)
				if n != f {
					req = append(req, n)
				}
			}
			var got []string
			for k := range d.Properties {
				got = append(got, k)
			}
			slices.Sort(want)
			slices.Sort(got)
			slices.Sort(req)
			slices.Sort(d.Required)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("flowscript/schema: %s %s properties (-decoder +schema):\n%s", file, op, diff)
			}
			if diff := cmp.Diff(req, d.Required); diff != "" {
				t.Errorf("flowscript/schema: %s %s required (-decoder +schema):\n%s", file, op, diff)
			}
		}
	}
	check("flowscript.schema.json", "op.", "op", opFields)
	check("driver.schema.json", "do.", "do", actionFields)
	var tool struct {
		Enum []string `json:"enum"`
	}
	_ = json.Unmarshal(load("flowscript.schema.json")["op.execute"].Properties["tool"], &tool)
	if diff := cmp.Diff(FakeNames(), tool.Enum); diff != "" {
		t.Errorf("flowscript/schema: fakes (-decoder +schema):\n%s", diff)
	}
	b, _ := os.ReadFile("flowscript.schema.json")
	var top struct {
		Properties struct {
			Format struct {
				Enum []string `json:"enum"`
			} `json:"format"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(b, &top)
	if diff := cmp.Diff(Formats(), top.Properties.Format.Enum); diff != "" {
		t.Errorf("flowscript/schema: formats (-decoder +schema):\n%s", diff)
	}
}

func TestRunDriverRecordsRefusals(t *testing.T) {
	s, err := Decode("f.json", []byte(`{"format":"loom-flowscript/1","id":"f","body":[{"op":"suspend","on":"go"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeDriver("d.json", []byte(`{"format":"loom-driver/1","actions":[{"do":"start"},{"do":"resume","eventType":"other"},{"do":"resume","eventType":"go","payload":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunDriver(context.Background(), s, d, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Results[1].Error == "" || r.Results[2].Status != "completed" || len(r.Log) != 5 {
		t.Errorf("flowscript/run: results %+v, %d envelopes; want a refused resume, then completed with 5 envelopes", r.Results, len(r.Log))
	}
}
