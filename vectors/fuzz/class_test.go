package fuzz_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
)

// twoBugs answers like the reference except: a log with a STEP_STARTED folds to status "bogus",
// and otherwise a log with a DECISION_RECORDED loses _decisions. Two root causes.
type twoBugs struct{}

func (twoBugs) Answer(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	r, err := vectors.Reference{}.Answer(ctx, req)
	if err != nil || r.Output == nil || req.Events == nil {
		return r, err
	}
	all := ""
	for _, e := range *req.Events {
		all += string(e)
	}
	var st map[string]any
	if json.Unmarshal([]byte(*r.Output), &st) != nil {
		return r, nil
	}
	switch {
	case strings.Contains(all, `"STEP_STARTED"`):
		st["status"] = "bogus"
	case strings.Contains(all, `"DECISION_RECORDED"`):
		if v, ok := st["variables"].(map[string]any); ok {
			delete(v, "_decisions")
		}
	default:
		return r, nil
	}
	b, _ := json.Marshal(st)
	out := string(b)
	r.Output = &out
	return r, nil
}

// Reference: issue "vectors fuzz that keeps going" — the run goes on after the first
// disagreement, groups the logs by root cause (shape and first differing path), shrinks one
// per class, and a ledger of known classes sets one aside so the other stands out.
func TestFuzzGroupsClassesAndSetsKnownAside(t *testing.T) {
	res, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 1, Count: 400}, vectors.Reference{}, twoBugs{})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	if res.Logs != 400 || len(res.Classes) != 2 {
		keys := []string{}
		for _, c := range res.Classes {
			keys = append(keys, c.Key+" × "+c.Summary())
		}
		t.Fatalf("vectors/fuzz-classes: Run(two bugs, 400 logs) = %d logs, classes %q; want 400 logs in 2 classes", res.Logs, keys)
	}
	total := 0
	for _, c := range res.Classes {
		total += c.Logs
		if len(c.Finding.Minimal.Events) != 1 {
			t.Errorf("vectors/fuzz-classes: class %s shrunk to %d envelopes, want 1", c.Key, len(c.Finding.Minimal.Events))
		}
	}
	if total != res.Disagreements || !strings.HasSuffix(res.Classes[0].Key, "@ /status") && !strings.HasSuffix(res.Classes[1].Key, "@ /status") {
		t.Errorf("vectors/fuzz-classes: classes %s (%d logs) and %s (%d) of %d disagreements, want one at /status and every log in a class",
			res.Classes[0].Key, res.Classes[0].Logs, res.Classes[1].Key, res.Classes[1].Logs, res.Disagreements)
	}
	known, err := fuzz.ParseKnown("known.json", []byte(`{"knownClasses": [{"class": `+quote(res.Classes[0].Key)+`, "reason": "deliberate"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	again, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 1, Count: 400, Known: known}, vectors.Reference{}, twoBugs{})
	if err != nil {
		t.Fatal(err)
	}
	if open := again.Open(); len(open) != 1 || open[0].Key != res.Classes[1].Key || again.Classes[0].Known != "deliberate" {
		t.Errorf("vectors/fuzz-known: with the first class known, open classes = %d, want only %s", len(open), res.Classes[1].Key)
	}
	for _, bad := range []string{`[]`, `{"knownClasses": [{"class": "x"}]}`, `{"knownClasses": [{"class": "x", "reason": "r", "extra": 1}]}`,
		`{"knownClasses": [{"class": "x", "reason": "r"}, {"class": "x", "reason": "s"}]}`} {
		if _, err := fuzz.ParseKnown("k.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "k.json") {
			t.Errorf("ParseKnown(%s) = %v, want an error naming the file", bad, err)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// crashing never answers: every request fails as a process that exited would.
type crashing struct{}

func (crashing) Answer(context.Context, vectors.Request) (vectors.Response, error) {
	return vectors.Response{}, errors.New(`the fold exited: exit status 1; stderr tail: "segfault"`)
}

// Reference: issue 24 — a fold under test that crashes or exits is "the foreign fold failed",
// with its error and stderr, never a disagreement or a vector.
func TestFuzzForeignFailureIsNotADisagreement(t *testing.T) {
	res, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 3, Count: 50}, vectors.Reference{}, crashing{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil || res.Disagreements != 0 || len(res.Classes) != 0 || res.Failure.Seed != 3 || !strings.Contains(res.Failure.Err.Error(), "segfault") {
		t.Fatalf("vectors/fuzz-foreign-failed: Run(a crashing fold) = %+v, want a Failure at seed 3 naming the stderr and no disagreement", res)
	}
}

// A class names where the answers differ with data keys (step ids, user variables) and indices
// generalised, so logs that differ only in their names share it.
func TestClassKeyGeneralisesDataKeys(t *testing.T) {
	out := func(s string) vectors.Response { return vectors.Response{Output: &s} }
	c := fuzz.Case{Events: []json.RawMessage{json.RawMessage(`{"eventType":"STEP_COMPLETED"}`), json.RawMessage(`{"eventType":7}`)}}
	for _, x := range []struct{ want, got, key string }{
		{`{"frames":{"step-9":{"output":1}}}`, `{"frames":{"step-9":{"output":2}}}`, "[STEP_COMPLETED ?] @ /frames/*/output"},
		{`{"variables":{"x":[1,2]}}`, `{"variables":{"x":[1,3]}}`, "[STEP_COMPLETED ?] @ /variables/*/#"},
		{`{"variables":{"_decisions":{"d":{"seq":1}}}}`, `{"variables":{"_decisions":{"d":{}}}}`, "[STEP_COMPLETED ?] @ /variables/_decisions/*/seq"},
		{`{"a":1}`, `{ "a" : 1 }`, "[STEP_COMPLETED ?] @ output bytes"},
	} {
		if got := fuzz.ClassKey(c, out(x.want), out(x.got)); got != x.key {
			t.Errorf("ClassKey(%s, %s) = %q, want %q", x.want, x.got, got, x.key)
		}
	}
	if got := fuzz.ClassKey(fuzz.Case{Snapshot: json.RawMessage(`{}`)}, vectors.Response{Error: "sequence"}, out(`{}`)); got != "snapshot+[] @ error sequence / output" {
		t.Errorf("ClassKey(error, output) = %q", got)
	}
}
