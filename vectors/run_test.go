package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"github.com/loom-kernel/loom-conform/internal/junit"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

func TestReferencePassesCorpus(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), c, Reference{}, Config{})
	for _, r := range rep.Results {
		if r.Verdict != Pass {
			t.Errorf("%s", r.Message)
		}
	}
	if !rep.OK() || len(rep.Results) != len(c.Vectors) {
		t.Errorf("Run(reference) OK = %v over %d of %d vectors, want true over all: %+v", rep.OK(), len(rep.Results), len(c.Vectors), rep.Counts())
	}
}

func TestProfileSelects(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), c, Reference{}, Config{Profile: "1.20"})
	if rep.Excluded == 0 || len(rep.Results)+rep.Excluded != len(c.Vectors) {
		t.Fatalf("Run(--profile 1.20) ran %d, excluded %d of %d", len(rep.Results), rep.Excluded, len(c.Vectors))
	}
	want := fold.MustProfile("1.20.0")
	for _, r := range rep.Results {
		v, _ := c.ByID(r.ID)
		if v.Kind == KindFold && fold.MustProfile(v.Profile) != want {
			t.Errorf("Run(--profile 1.20) ran %s of profile %s", v.ID, v.Profile)
		}
	}
}

// script is a Folder with scripted answers for some ids; the rest get the reference's.
type script map[string]func() (Response, error)

func (s script) Answer(ctx context.Context, req Request) (Response, error) {
	if f, ok := s[req.ID]; ok {
		r, err := f()
		r.ID = req.ID
		return r, err
	}
	return Reference{}.Answer(ctx, req)
}

// The reports: the table and failure grammar, JUnit (failure, error, skipped) and JSON.
func TestReports(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	wrong := `{"frames":{},"sequence":0,"startedAt":1000,"status":"failed","updatedAt":1000,"variables":{"_input":{"n":1}}}`
	f := script{
		"fold/basic/started":             func() (Response, error) { return Response{Output: &wrong}, nil },
		"canonical/literals":             func() (Response, error) { return Response{}, errors.New("no answer within the timeout") },
		"digest/payload-null":            func() (Response, error) { return Response{Error: ErrUnsupported}, nil },
		"fold/v1_22/rehomed-any-payload": func() (Response, error) { return Response{Error: ErrInternal}, nil },
	}
	ledger := &Ledger{Entries: []LedgerEntry{{Check: "fold/v1_22/rehomed-any-payload", Reason: "not ported"}}}
	rep := Run(context.Background(), c, f, Config{Ledger: ledger})
	if got := rep.Counts(); got.Fail != 2 || got.Unknown != 1 || got.ExpectedFail != 1 || rep.OK() {
		t.Fatalf("Counts = %+v, OK = %v; want 2 fail, 1 unknown, 1 expected, not OK", got, rep.OK())
	}
	var out bytes.Buffer
	if err := rep.Render(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"vector/fold/basic/started [S4.fold.status-execution-only S4.envelope.shape]: Fold(1.26.0, vectors/corpus/fold/basic/started.json) = {",
		"(-want +got):\ndiffers at /status\n", `-   "status": "running",`, `+   "status": "failed",`,
		"unknown canonical/literals", "= error:unsupported, want ", "FAIL:",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Render output lacks %q:\n%s", want, out.String())
		}
	}
	var ju bytes.Buffer
	if err := rep.WriteJUnit(&ju); err != nil {
		t.Fatal(err)
	}
	var suites junit.Suites
	if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
		t.Fatal(err)
	}
	var failures, errs, skipped int
	for _, s := range suites.Suites {
		failures, errs, skipped = failures+s.Failures, errs+s.Errors, skipped+s.Skipped
	}
	if failures != 2 || errs != 1 || skipped != 1 {
		t.Errorf("JUnit failures/errors/skipped = %d/%d/%d, want 2/1/1", failures, errs, skipped)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		OK      bool `json:"ok"`
		Fail    int  `json:"fail"`
		Results []struct {
			Verdict string `json:"verdict"`
		} `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil || parsed.OK || parsed.Fail != 2 || len(parsed.Results) != len(c.Vectors) {
		t.Errorf("WriteJSON = ok %v, fail %d, %d results (%v)", parsed.OK, parsed.Fail, len(parsed.Results), err)
	}
}

// Reference: I-VECTOR-1 — a failure report diffs the expected and the answered state by value,
// as JSON, also for a hostile generated vector holding a value 200 levels deep (in time linear in
// the value's size).
func TestJSONDiffDeepValues(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	if d := jsonDiff(`{"a":1,"x":`+deep+`}`, `{"a":2,"x":`+deep+`}`); !strings.HasPrefix(d, "differs at /a\n") {
		t.Errorf("vectors/reports [I-VECTOR-1]: jsonDiff(200 levels deep) = %q, want a value diff at /a", d)
	}
	if d := jsonDiff(`{"a":1,"s":"[[[[[[[[[[[[[[[["}`, `{"a":2,"s":"[[[[[[[[[[[[[[[["}`); !strings.Contains(d, "-") || !strings.Contains(d, "+") {
		t.Errorf("vectors/reports [I-VECTOR-1]: jsonDiff(brackets inside a string) = %q, want a value diff", d)
	}
}
