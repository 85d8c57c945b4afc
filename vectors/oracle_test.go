package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/testenv"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Reference: DESIGN §3.3/§3.4, spec §3 — every canonical-JSON and digest expectation of the corpus,
// and the canonical bytes of every expected fold state, recomputed by JavaScript itself
// (testdata/oracle.js: JSON.stringify with keys sorted by UTF-16 units, FNV-1a 64 with BigInt).
// With CI=true the test must run: a missing node fails it.
func TestJavaScriptOracle(t *testing.T) {
	node := testenv.LookPath(t, "node", "install Node.js (>= 12) to check the vectors against JavaScript")
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	type req struct {
		ID        string          `json:"id"`
		Kind      Kind            `json:"kind"`
		Input     *string         `json:"input,omitempty"`
		Segment   *int            `json:"segment,omitempty"`
		EventType string          `json:"eventType,omitempty"`
		Payload   json.RawMessage `json:"payload,omitempty"`
		State     json.RawMessage `json:"state,omitempty"`
	}
	var reqs []req
	want := map[string]Response{}
	for _, v := range c.Vectors {
		r := req{ID: v.ID, Kind: v.Kind}
		var w Response
		switch {
		case v.Kind == KindCanonical:
			r.Input = v.Input
			if v.Expect.Error != "" {
				w.Error = v.Expect.Error
			} else {
				w.Output = v.Expect.Canonical
			}
		case v.Kind == KindDigest:
			r.Segment, r.EventType, r.Payload = v.Segment, v.EventType, v.Payload
			d := v.Expect.Digest
			w.Output = &d
		case v.Kind == KindFold && v.Expect.State != nil:
			r.State = v.Expect.State
			b, err := fold.CanonicalJSON(v.Expect.State)
			if err != nil {
				t.Fatalf("%s: %v", v.File, err)
			}
			s := string(b)
			w.Output = &s
		default:
			continue
		}
		reqs = append(reqs, r)
		want[v.ID] = w
	}
	in, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/oracle.js")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/oracle.js: %v: %s", err, stderr.String())
	}
	var got []Response
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("oracle output: %v", err)
	}
	if len(got) != len(reqs) {
		t.Fatalf("oracle answered %d of %d vectors", len(got), len(reqs))
	}
	for _, g := range got {
		w := want[g.ID]
		v, _ := c.ByID(g.ID)
		switch {
		case w.Error != "" || g.Error != "":
			if w.Error != g.Error {
				t.Errorf("vector/%s [%v]: JavaScript(%s) = error %q, want error %q", g.ID, v.Clauses, v.File, g.Error, w.Error)
			}
		case g.Output == nil || *g.Output != *w.Output:
			t.Errorf("vector/%s [%v]: JavaScript(%s) = %s, want %s", g.ID, v.Clauses, v.File, deref(g.Output), *w.Output)
		}
	}
	t.Logf("node agreed on %d expectations", len(got))
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// The JavaScript example fold of docs/vectors.md (testdata/example-fold.js), written from the
// documented protocol alone, passes every canonical and digest vector: the protocol is enough for
// a port in another language. With CI=true the test must run.
func TestExampleFoldJS(t *testing.T) {
	node := testenv.LookPath(t, "node", "install Node.js to run the JavaScript example fold")
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var sub Corpus
	for _, v := range c.Vectors {
		if v.Kind != KindFold {
			sub.Vectors = append(sub.Vectors, v)
		}
	}
	p, err := NewProcess([]string{node, "testdata/example-fold.js"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep := Run(ctx, sub, p, Config{})
	for _, r := range rep.Results {
		if r.Verdict != Pass {
			t.Errorf("%s", r.Message)
		}
	}
	if len(rep.Results) < 50 {
		t.Errorf("ran %d canonical/digest vectors, want at least 50", len(rep.Results))
	}
}
