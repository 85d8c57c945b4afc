package vectors

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// jsonMembers lists the JSON member names of struct type t (its json tags, "-" excluded).
func jsonMembers(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Reference: I-VECTOR-1, I-VECTOR-20 — docs/vector.schema.json describes exactly the members the
// loader reads: a vector's, its expectation's, and the error kinds a vector may expect.
func TestSchemaMatchesFormat(t *testing.T) {
	b, err := os.ReadFile("../docs/vector.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("docs/vector.schema.json: %v", err)
	}
	var expect struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(s.Properties["expect"], &expect); err != nil {
		t.Fatal(err)
	}
	var errKinds struct {
		Enum []string `json:"enum"`
	}
	if err := json.Unmarshal(expect.Properties["error"], &errKinds); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	kinds := append(ErrorKinds(KindFold), ErrorKinds(KindCanonical)...)
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"vector members", keys(s.Properties), jsonMembers(reflect.TypeOf(Vector{}))},
		{"expect members", keys(expect.Properties), jsonMembers(reflect.TypeOf(Expect{}))},
		{"error kinds", errKinds.Enum, kinds},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("vectors/schema [I-VECTOR-1]: docs/vector.schema.json %s = %q, want %q (the loader's)", c.what, c.got, c.want)
		}
	}
}
