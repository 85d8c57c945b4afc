package kits

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// A failure speaks the protocol's language: values as the JSON the bridge carried, never Go types,
// in the diff and on the failure line alike.
func TestFailuresShowJSONNotGoValues(t *testing.T) {
	want := []spi.Envelope{{ID: "a", ExecutionID: "x", EventType: "T", Payload: json.RawMessage(`{"attempt":1}`), Metadata: json.RawMessage(`{}`)}}
	got := []spi.Envelope{{ID: "a", ExecutionID: "x", EventType: "T", Payload: json.RawMessage(`{"attempt":"1"}`)}}
	ref := spi.ContentRef{Digest: "sha256:ab", Size: 3}
	kit := Kit[int]{Name: "k", Seam: "eventstore", Checks: []Check[int]{
		{ID: "k/diff", Clauses: []string{"S4.fold.unknown-inert"}, Level: spec.Must,
			Run: func(_ context.Context, c *Case[int]) error { return c.Diff("Read", `"x"`, want, got, envCmp) }},
		{ID: "k/failf", Clauses: []string{"S4.fold.unknown-inert"}, Level: spec.Must,
			Run: func(_ context.Context, c *Case[int]) error {
				return c.Failf("Put", "3 bytes", ref, map[string]int{"size": 4})
			}},
	}}
	rs, err := Run(context.Background(), kit, func(context.Context) (int, func(), error) { return 0, nil, nil }, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, goNotation := range []string{"spi.", "json.RawMessage", "identical fields", `s"1"`, "map[", "{Digest:", "[]"} {
			if strings.Contains(r.Message, goNotation) {
				t.Errorf("%s: the failure shows Go notation %q:\n%s", r.CheckID, goNotation, r.Message)
			}
		}
	}
	for _, w := range []string{"(-want +got):\ndiffers at /0/metadata, /0/payload/attempt\n", `-     "metadata": {},`, `+       "attempt": "1"`} {
		if !strings.Contains(rs[0].Message, w) {
			t.Errorf("Diff message lacks %q:\n%s", w, rs[0].Message)
		}
	}
	if want := `Put(3 bytes) = {"digest":"sha256:ab","size":3}, want {"size":4}`; !strings.Contains(rs[1].Message, want) {
		t.Errorf("Failf message = %q, want it to hold %q", rs[1].Message, want)
	}
}
