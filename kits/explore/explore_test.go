package explore

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// disagreesOn is a replay that parts at the first "b" that follows an "a": the bug needs both.
func disagreesOn(ctx context.Context, s Script) (*Mismatch, error) {
	seenA := false
	for i, st := range s.Steps {
		switch {
		case st.Op == "a":
			seenA = true
		case st.Op == "b" && seenA:
			return &Mismatch{Step: i, Op: "b", Clauses: []string{"X"}, Got: "1", Want: "2"}, nil
		case st.Op == "c":
			// a different disagreement: shrinking must not slide onto it
			if len(s.Steps) < 4 {
				return &Mismatch{Step: i, Op: "c", Clauses: []string{"Y"}}, nil
			}
		}
	}
	return nil, nil
}

func TestShrinkKeepsTheSameDisagreement(t *testing.T) {
	var steps []Step
	for _, op := range strings.Split("x y a x c y x b x y", " ") {
		steps = append(steps, Step{Op: op})
	}
	s := Script{Check: "k/explore", Seed: 1, Steps: steps}
	m, err := disagreesOn(context.Background(), s)
	if err != nil || m == nil {
		t.Fatalf("disagreesOn(script) = %v, %v, want a mismatch", m, err)
	}
	small, sm, tried, err := Shrink(context.Background(), s, m, disagreesOn, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, st := range small.Steps {
		ops = append(ops, st.Op)
	}
	if got := strings.Join(ops, " "); got != "a b" || sm.Op != "b" {
		t.Errorf("Shrink(%d steps) = %q (mismatch on %q) after %d replays, want \"a b\" on \"b\"", len(steps), got, sm.Op, tried)
	}
}

func TestShrinkStopsAtItsBudgetAndOnErrors(t *testing.T) {
	s := Script{Check: "k/explore", Steps: []Step{{Op: "x"}, {Op: "a"}, {Op: "x"}, {Op: "b"}}}
	m, _ := disagreesOn(context.Background(), s)
	if _, _, tried, _ := Shrink(context.Background(), s, m, disagreesOn, 1); tried != 1 {
		t.Errorf("Shrink(budget 1) made %d replays, want 1", tried)
	}
	boom := errors.New("target gone")
	failing := func(context.Context, Script) (*Mismatch, error) { return nil, boom }
	got, _, _, err := Shrink(context.Background(), s, m, failing, 10)
	if !errors.Is(err, boom) || len(got.Steps) != len(s.Steps) {
		t.Errorf("Shrink(a replay that fails) = %d steps, %v, want the script unchanged and the error", len(got.Steps), err)
	}
}

func TestFindingFileRoundTrips(t *testing.T) {
	f := Finding{Script: Script{Check: "eventstore/explore", Seed: 7, Round: 3, Steps: []Step{{Op: "append", Args: Args(map[string]any{"id": "a"})}, {Client: 1, Op: "read"}}},
		Mismatch: Mismatch{Step: 1, Op: "read", Clauses: []string{"S7.x"}}}
	s, err := ParseScript(f.File())
	if err != nil || s.Check != f.Script.Check || len(s.Steps) != 2 || s.Steps[1].Client != 1 || string(s.Steps[0].Args) != `{"id":"a"}` {
		t.Errorf("ParseScript(File()) = %+v, %v, want the script back", s, err)
	}
	for _, bad := range []string{`{"steps":[]}`, `{"check":"x","steps":[{"args":1}]}`, `{"check":"x","extra":1}`, `[`} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("ParseScript(%s) = nil error, want one naming what is wrong", bad)
		}
	}
	if f.FileName() != "eventstore-explore-7-3.json" {
		t.Errorf("FileName() = %q", f.FileName())
	}
}

func TestTogetherStepsRoundTripAndAreChecked(t *testing.T) {
	race := Step{Op: Together, Together: []Step{{Client: 1, Op: "save", Args: Args(map[string]int{"id": 1})}, {Client: 2, Op: "loadLatest", Args: Args(map[string]int{"id": 1})}}}
	f := Finding{Script: Script{Check: "snapshotstore/explore", Steps: []Step{{Op: "save"}, race}}}
	s, err := ParseScript(f.File())
	if err != nil || len(s.Steps) != 2 || len(s.Steps[1].Together) != 2 || s.Steps[1].Together[1].Op != "loadLatest" {
		t.Fatalf("ParseScript(File()) = %+v, %v, want the together step back", s, err)
	}
	if got, want := race.String(), `client 1: save {"id":1} ∥ client 2: loadLatest {"id":1}`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for bad, why := range map[string]string{
		`{"check":"x","steps":[{"op":"together","together":[{"op":"a"}]}]}`:                                                      "want 2 to 4",
		`{"check":"x","steps":[{"op":"together","together":[{"op":"a"},{"op":"b"},{"op":"c"},{"op":"d"},{"op":"e"}]}]}`:          "want 2 to 4",
		`{"check":"x","steps":[{"op":"a","together":[{"op":"a"},{"op":"b"}]}]}`:                                                  `want op "together"`,
		`{"check":"x","steps":[{"op":"together","together":[{"op":"a"},{"op":"together","together":[{"op":"a"},{"op":"b"}]}]}]}`: "inside another",
		`{"check":"x","steps":[{"op":"together","together":[{"op":"a"},{"op":""}]}]}`:                                            `steps[0].together[1]: no "op"`,
	} {
		if _, err := ParseScript([]byte(bad)); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseScript(%s) = %v, want an error saying %q", bad, err, why)
		}
	}
}
