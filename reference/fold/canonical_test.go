package fold

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// loadCases reads a fixture produced by JavaScript (node: JSON.stringify with keys sorted, the
// RFC 8785 reference behaviour) so the table is the real thing, not our belief about it.
func loadCases(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Reference: spec §3 emit identity (canonical form), DESIGN §3.3 — a table of hard cases whose
// expected bytes were printed by JavaScript: number formatting, escapes, U+2028/2029, astral
// characters, lone surrogates, key order by UTF-16 code units, repeated keys.
func TestCanonicalHardCases(t *testing.T) {
	var cases [][2]string
	loadCases(t, "testdata/canonical_cases.json", &cases)
	if len(cases) < 30 {
		t.Fatalf("testdata/canonical_cases.json holds %d cases, want >= 30", len(cases))
	}
	for _, c := range cases {
		got, err := CanonicalJSON([]byte(c[0]))
		if err != nil || string(got) != c[1] {
			t.Errorf("fold/canonical-json [S3.emit.canonical-form]: CanonicalJSON(%s) = %q, %v, want %q", c[0], got, err, c[1])
		}
		again, err := CanonicalJSON(got)
		if err != nil || string(again) != string(got) {
			t.Errorf("fold/canonical-json [S3.emit.canonical-form]: CanonicalJSON is not idempotent on %q: %q, %v", got, again, err)
		}
	}
}

// Reference: DESIGN §3.3 — Go values: numbers as JavaScript prints them, no JSON form is an error.
func TestCanonicalGoValues(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{map[string]any{"b": 1, "a": []any{1e21, 1e-7, -0.0, "<\u2028>"}}, `{"a":[1e+21,1e-7,0,"<` + "\u2028" + `>"],"b":1}`},
		{struct {
			Z int    `json:"z"`
			A string `json:"a"`
		}{1, "&"}, `{"a":"&","z":1}`},
		{json.RawMessage(` {"y" : 1.50, "x": "\u00e9"} `), `{"x":"é","y":1.5}`},
		{int64(1) << 53, `9007199254740992`},
	} {
		got, err := Canonical(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("fold/canonical-go [S3.emit.canonical-form]: Canonical(%#v) = %s, %v, want %s", c.v, got, err, c.want)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), make(chan int), func() {}, json.RawMessage(`{`)} {
		if got, err := Canonical(bad); err == nil {
			t.Errorf("fold/canonical-go [S3.emit.unmatchable-unstamped]: Canonical(%T) = %s, want an error (no JSON form)", bad, got)
		}
	}
}

// Reference: spec §3 emit identity, DESIGN §3.4 — digests computed in JavaScript.
func TestEmitDigest(t *testing.T) {
	var cases [][4]any
	loadCases(t, "testdata/digest_cases.json", &cases)
	for _, c := range cases {
		seg, typ, payload, want := int(c[0].(float64)), c[1].(string), c[2].(string), c[3].(string)
		got, err := EmitDigest(seg, typ, json.RawMessage(payload))
		if err != nil || got != want {
			t.Errorf("fold/emit-digest [S3.emit.identity]: EmitDigest(%d, %q, %s) = %q, %v, want %q", seg, typ, payload, got, err, want)
		}
	}
	if _, err := EmitDigest(0, "x", json.RawMessage(`{`)); err == nil {
		t.Errorf("fold/emit-digest [S3.emit.unmatchable-unstamped]: EmitDigest(invalid payload) = nil error, want an error")
	}
	d1, _ := EmitDigestOf(0, "progress", map[string]any{"p": 1})
	if d1 != "e5dc3cdf3f69d31d" {
		t.Errorf("fold/emit-digest [S3.emit.identity]: EmitDigestOf(0, progress, {p:1}) = %s, want e5dc3cdf3f69d31d", d1)
	}
}

// Reference: DESIGN §3.3 — UTF-16 key order differs from byte order for astral characters.
func TestCompareUTF16(t *testing.T) {
	if compareUTF16("\U0001F600", "\uFB33") >= 0 {
		t.Errorf("fold/canonical-json [S3.emit.canonical-form]: compareUTF16(U+1F600, U+FB33) >= 0, want < 0 (D83D < FB33)")
	}
	if compareUTF16("a", "ab") >= 0 || compareUTF16("b", "ab") <= 0 || compareUTF16("x", "x") != 0 {
		t.Errorf("fold/canonical-json [S3.emit.canonical-form]: compareUTF16 prefix order wrong")
	}
}
