package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// generalSchemas compiles the embedded schemas with a general JSON Schema 2020-12 validator: the
// reference the bridge's own compiler is held to.
func generalSchemas(t testing.TB) func(loc string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	entries, err := schemaFiles.ReadDir("schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := schemaFiles.ReadFile(path.Join("schema", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(SchemaBase+e.Name(), doc); err != nil {
			t.Fatal(err)
		}
	}
	return func(loc string) *jsonschema.Schema {
		s, err := c.Compile(SchemaBase + loc)
		if err != nil {
			t.Fatalf("general validator: %s: %v", loc, err)
		}
		return s
	}
}

// docExamples returns docs/bridge.md's example exchanges: per method, its params, its result, the
// whole response frame and the whole request frame.
func docExamples(t *testing.T) map[string][4]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("../../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	out := map[string][4]json.RawMessage{}
	block := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	for _, sec := range regexp.MustCompile(`(?m)^### `).Split(doc[strings.Index(doc, "## Example exchanges"):], -1)[1:] {
		blocks := block.FindAllStringSubmatch(sec, -1)
		if len(blocks) != 2 {
			continue
		}
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(blocks[0][1]), &req) != nil || json.Unmarshal([]byte(blocks[1][1]), &resp) != nil {
			continue
		}
		out[req.Method] = [4]json.RawMessage{req.Params, resp.Result, json.RawMessage(blocks[1][1]), json.RawMessage(blocks[0][1])}
	}
	return out
}

// variants returns v and the values one edit away from it, at every depth: each member removed,
// an unknown member added, each value replaced by one of a set of values of every JSON type (the
// strings and numbers at the edges of the bridge's patterns, lengths and bounds), each array
// emptied or its first element doubled.
func variants(v any) []any {
	edits := []any{nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("2.0"),
		json.Number("1e300"), "", "x", "1.2.3", "=", "AA==", "sha256:" + strings.Repeat("a", 64), []any{}, map[string]any{}}
	out := []any{v}
	switch x := v.(type) {
	case map[string]any:
		for k := range x {
			without := clone(x)
			delete(without, k)
			out = append(out, without)
			for _, sub := range append(edits[:len(edits):len(edits)], variants(x[k])[1:]...) {
				with := clone(x)
				with[k] = sub
				out = append(out, with)
			}
		}
		adds := []map[string]any{
			{"zz": json.Number("1")},
			{"error": map[string]any{"code": json.Number("-32000"), "message": "m"}}, // a response with both
			{"result": nil},
		}
		if len(x) > 0 {
			adds = append(adds, map[string]any{"zz": x[firstKey(x)]}) // a valid value under a name no schema gives
		}
		for _, add := range adds {
			extra := clone(x)
			for k, v := range add {
				if _, ok := extra[k]; !ok {
					extra[k] = v
				}
			}
			out = append(out, extra)
		}
	case []any:
		out = append(out, []any{})
		if len(x) > 0 {
			out = append(out, append([]any{x[0]}, x...))
			for _, sub := range append(edits[:len(edits):len(edits)], variants(x[0])[1:]...) {
				out = append(out, append([]any{sub}, x[1:]...))
			}
		}
	default:
		out = append(out, edits...)
	}
	return out
}

// firstKey is the least key of a non-empty m.
func firstKey(m map[string]any) string {
	return slices.Sorted(maps.Keys(m))[0]
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Reference: I-BRIDGE-4, I-PERF-10 — the bridge's schema compiler (the part of JSON Schema 2020-12
// the bridge's schemas use, compiled on first use, not at start) reaches the verdict a general
// 2020-12 validator reaches on every message of docs/bridge.md and on every message one edit away
// from one, for every method's params and result and for the request and response frames.
func TestSchemasAgreeWithJSONSchema(t *testing.T) {
	own, err := CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := compileDocs()
	if err != nil {
		t.Fatal(err)
	}
	request, err := docs.schemaAt("", SchemaBase+"request.json")
	if err != nil {
		t.Fatal(err)
	}
	general := generalSchemas(t)
	examples := docExamples(t)
	if len(examples) < len(Methods()) {
		t.Fatalf("docs/bridge.md has examples for %d methods, want every one of %d", len(examples), len(Methods()))
	}
	compared, rejected, disagreements := 0, 0, 0
	for method, ex := range examples {
		for i, part := range []struct {
			loc string
			own *node
		}{
			{method + ".json#/$defs/params", own.params[method]},
			{method + ".json#/$defs/result", own.result[method]},
			{"response.json", own.response},
			{"request.json", request},
		} {
			if len(ex[i]) == 0 {
				continue
			}
			v, err := decodeJSON(ex[i])
			if err != nil {
				t.Fatalf("%s: %v", part.loc, err)
			}
			ref := general(part.loc)
			for _, w := range variants(v) {
				ownErr, refErr := part.own.validate(w), ref.Validate(w)
				compared++
				if ownErr != nil {
					rejected++
				}
				if (ownErr == nil) != (refErr == nil) {
					disagreements++
					if disagreements <= 10 {
						b, _ := json.Marshal(w)
						t.Errorf("bridge/schema-agree [I-BRIDGE-4, I-PERF-10]: %s on %s: own verdict %v, general validator %v", part.loc, b, ownErr, refErr)
					}
				}
			}
		}
	}
	if disagreements > 0 || rejected == 0 || rejected == compared {
		t.Fatalf("bridge/schema-agree [I-BRIDGE-4, I-PERF-10]: %d disagreements in %d messages (%d rejected); want none, and both verdicts among them", disagreements, compared, rejected)
	}
	t.Logf("%d messages, %d rejected by both validators", compared, rejected)
}

// Reference: I-BRIDGE-4 — a keyword outside the part of JSON Schema the compiler knows fails the
// compile instead of being skipped, as do a type that is not one and a reference to no document.
func TestSchemaCompilerRefusesWhatItDoesNotKnow(t *testing.T) {
	for _, doc := range []string{
		`{"type":"string","maxLength":3}`,
		`{"type":"strin"}`,
		`{"$ref":"nowhere.json#/$defs/x"}`,
		`{"properties":{"a":{"if":{"type":"string"}}}}`,
		`{"minLength":-1}`,
		`{"pattern":"("}`,
	} {
		v, err := decodeJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		c := &compiler{docs: map[string]any{"t.json": v}, nodes: map[string]*node{}}
		if _, err := c.schemaAt("t.json", ""); err == nil {
			t.Errorf("bridge/schema-compile [I-BRIDGE-4]: compile(%s) = ok, want an error", doc)
		}
	}
	v, _ := decodeJSON([]byte(`{"type":"object","properties":{"a":{"type":"integer","minimum":1}},"required":["a"],"additionalProperties":false}`))
	c := &compiler{docs: map[string]any{"t.json": v}, nodes: map[string]*node{}}
	n, err := c.schemaAt("t.json", "")
	if err != nil {
		t.Fatal(err)
	}
	for in, ok := range map[string]bool{`{"a":1}`: true, `{"a":1.0}`: true, `{"a":0}`: false, `{"a":1.5}`: false, `{}`: false, `{"a":1,"b":2}`: false} {
		x, _ := decodeJSON([]byte(in))
		if err := n.validate(x); (err == nil) != ok {
			t.Errorf("bridge/schema-compile [I-BRIDGE-4]: validate(%s) = %v, want ok %v", in, err, ok)
		}
	}
}

// BenchmarkSchemaValidate checks an eventStore.read result of 100 envelopes with the bridge's
// compiler and with the general validator (the cost the client pays on every response).
func BenchmarkSchemaValidate(b *testing.B) {
	own, err := CompileSchemas()
	if err != nil {
		b.Fatal(err)
	}
	general := generalSchemas(b)("eventStore.read.json#/$defs/result")
	var env []string
	for i := range 100 {
		env = append(env, fmt.Sprintf(`{"id":"e%d","workflowId":"w","executionId":"x","eventType":"T","sequence":%d,"timestamp":1,"payload":{"v":[1,2,{"k":"v"}]},"metadata":{"m":1}}`, i, i))
	}
	v, err := decodeJSON([]byte("[" + strings.Join(env, ",") + "]"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("own", func(b *testing.B) {
		for b.Loop() {
			if err := own.result["eventStore.read"].validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		for b.Loop() {
			if err := general.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
