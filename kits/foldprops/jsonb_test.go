package foldprops

import (
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Reference: I-FOLD-16 — the jsonb round trip of the snapshot property moves members and white
// space only: keys by length then bytes, the last of a repeated key kept (an escaped spelling is
// the same key), every key and leaf spelled as it was, lone surrogates kept apart.
func TestJSONBReorder(t *testing.T) {
	in := `{"\ud800":1,"\udfff":2,"a":3,"\u0061":[1e400,-0],"\ud83d\ude00":5,"😀":6,"b\n":{"z":1,"y":2},"b\\n":8}`
	want := `{"\u0061": [1e400, -0], "b\n": {"y": 2, "z": 1}, "b\\n": 8, "\ud800": 1, "\udfff": 2, "😀": 6}`
	got, err := JSONBReorder([]byte(in))
	if err != nil || string(got) != want {
		t.Fatalf("foldprops/jsonb-reorder: JSONBReorder(%s) = %s, %v, want %s", in, got, err, want)
	}
	a, err1 := fold.CanonicalJSON([]byte(in))
	b, err2 := fold.CanonicalJSON(got)
	if err1 != nil || err2 != nil || string(a) != string(b) {
		t.Errorf("foldprops/jsonb-reorder: CanonicalJSON(JSONBReorder(x)) = %s, %v, want CanonicalJSON(x) = %s, %v", b, err2, a, err1)
	}
	if _, err := JSONBReorder([]byte(`{"a":`)); err == nil {
		t.Errorf("foldprops/jsonb-reorder: JSONBReorder(invalid) = nil error, want one")
	}
}
