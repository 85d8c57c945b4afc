package kits

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Reference: DESIGN §7.1, a tier per assertion: a failure binds as the clauses of its failing
// comparisons, not as the whole check.
func TestFailureBindsAsItsFailingAssertions(t *testing.T) {
	choice, required := firstClause(t, spec.TierChoice), "S4.fold.unknown-inert"
	clauses := []string{required, choice}
	mk := func(run func(c *Case[int]) error) Kit[int] {
		return Kit[int]{Name: "k", Seam: "eventstore", Checks: []Check[int]{{ID: "k/x", Clauses: clauses, Level: spec.Must,
			Run: func(_ context.Context, c *Case[int]) error { return run(c) }}}}
	}
	factory := func(context.Context) (int, func(), error) { return 0, nil, nil }
	for _, tc := range []struct {
		name string
		run  func(c *Case[int]) error
		want spec.Requirement
		n    int
	}{
		{"only the choice fails", func(c *Case[int]) error { return c.Cite(choice).Failf("Op", "", 1, 2) }, spec.Recommended, 1},
		{"the spec assertion fails", func(c *Case[int]) error { return c.Cite(required).Failf("Op", "", 1, 2) }, spec.Required, 1},
		{"the whole check fails", func(c *Case[int]) error { return c.Failf("Op", "", 1, 2) }, spec.Required, 1},
		{"both, joined", func(c *Case[int]) error {
			return errors.Join(c.Cite(choice).Failf("A", "", 1, 2), c.Cite(required).Diff("B", "", 1, 2))
		}, spec.Required, 2},
		{"two choices, joined", func(c *Case[int]) error {
			return errors.Join(c.Cite(choice).Failf("A", "", 1, 2), c.Cite(choice).Diff("B", "", 1, 2))
		}, spec.Recommended, 2},
		{"a pass binds as the check", func(c *Case[int]) error { return c.Cite(choice).Diff("B", "", 1, 1) }, spec.Required, 0},
	} {
		rs, err := Run(context.Background(), mk(tc.run), factory, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := rs[0]
		if r.Requirement != tc.want || len(r.Failed) != tc.n {
			t.Errorf("%s: Requirement = %s with %d failed assertions (%+v), want %s with %d", tc.name, r.Requirement, len(r.Failed), r.Failed, tc.want, tc.n)
		}
		for _, a := range r.Failed {
			if a.Requirement != spec.CheckRequirement(spec.Must, a.Clauses) || a.Binds == "" {
				t.Errorf("%s: assertion %+v does not say how it binds", tc.name, a)
			}
		}
	}
}

func firstClause(t *testing.T, tier spec.Tier) string {
	t.Helper()
	for _, c := range spec.Clauses() {
		if c.Tier == tier {
			return c.ID
		}
	}
	t.Fatalf("no clause of tier %s", tier)
	return ""
}

// A comparison may cite only clauses its check declares, or spec --coverage would be untrue.
func TestCitedClausesDeclared(t *testing.T) {
	kit := Kit[int]{Name: "k", Seam: "eventstore", Checks: []Check[int]{{ID: "k/x", Clauses: []string{"S4.fold.unknown-inert"}, Level: spec.Must,
		Run: func(_ context.Context, c *Case[int]) error { return c.Cite("S4.fold.pure").Failf("Op", "", 1, 2) }}}}
	rs, err := Run(context.Background(), kit, func(context.Context) (int, func(), error) { return 0, nil, nil }, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Verdict != Unknown || !strings.Contains(rs[0].Message, "harness bug") {
		t.Errorf("Run(a check citing an undeclared clause) = %s %q, want unknown naming a harness bug", rs[0].Verdict, rs[0].Message)
	}
}
