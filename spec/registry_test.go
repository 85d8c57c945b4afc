package spec

import (
	"strings"
	"testing"
)

// Reference: issue scope — every normative statement is a clause with a stable id.
func TestRegistryIsWellFormed(t *testing.T) {
	cs := Clauses()
	if err := ValidateRegistry(cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) < 150 {
		t.Fatalf("registry holds %d clauses, want at least 150 (every MUST/SHOULD/MAY of both seeds)", len(cs))
	}
	for _, want := range []string{"S1.P2.replay-identical", "S1.P9.decision-logged", "S1.P10.minimal-kernel", "S1.G1.preserve-p2-p9",
		"S1.G2.unwired-byte-identical", "S2.K1.add-minor", "S4.K5.version-and-set-together", "A26.acceptance"} {
		if _, ok := Lookup(want); !ok {
			t.Errorf("Lookup(%q) = missing, want present", want)
		}
	}
}

func TestIDsCarryTheirSection(t *testing.T) {
	prefix := map[Source]func(Clause) bool{
		SourceSpec:           func(c Clause) bool { return strings.HasPrefix(c.ID, "S") },
		SourceADR:            func(c Clause) bool { return strings.HasPrefix(c.ID, "A26.") },
		SourceInterpretation: func(c Clause) bool { return strings.HasPrefix(c.ID, "I-") },
	}
	for _, c := range Clauses() {
		if !prefix[c.Source](c) {
			t.Errorf("clause %s: id prefix does not match source %s", c.ID, c.Source)
		}
	}
}

func TestValidateRegistryRejectsBadClauses(t *testing.T) {
	for name, cs := range map[string][]Clause{
		"duplicate":          {s("X", "§1", Must, "a"), s("X", "§1", Must, "b")},
		"bad level":          {{ID: "X", Section: "§1", Level: "OUGHT", Source: SourceSpec, Summary: "x"}},
		"bad source":         {{ID: "X", Section: "§1", Level: Must, Source: "blog", Summary: "x"}},
		"no summary":         {{ID: "X", Section: "§1", Level: Must, Source: SourceSpec}},
		"interp without why": {{ID: "I-X", Section: "§1", Level: Must, Source: SourceInterpretation, Summary: "x"}},
	} {
		if err := ValidateRegistry(cs); err == nil {
			t.Errorf("ValidateRegistry(%s) = nil, want error", name)
		}
	}
}

func TestValidateRejectsUnknownClause(t *testing.T) {
	err := Validate([]Check{{ID: "c1", Kind: KindTest, Clauses: []string{"S9.no-such-clause"}, Where: "x:T"}})
	if err == nil || !strings.Contains(err.Error(), "unknown clause") {
		t.Fatalf("Validate(unknown clause) = %v, want unknown clause error", err)
	}
	if err := Validate([]Check{{ID: "c1", Kind: KindTest, Where: "x:T"}}); err == nil {
		t.Fatal("Validate(no clauses) = nil, want error")
	}
	ok := []Check{{ID: "c1", Kind: KindTest, Clauses: []string{"S9.compat.shared-major"}, Where: "x:T"}}
	if err := Validate(append(ok, ok[0])); err == nil {
		t.Fatal("Validate(duplicate check id) = nil, want error")
	}
	if err := Validate(ok); err != nil {
		t.Fatalf("Validate(good) = %v", err)
	}
}

func TestCoverageCountsHonestly(t *testing.T) {
	cov := ComputeCoverage([]Check{{ID: "c1", Clauses: []string{"S9.compat.shared-major", "S9.compat.shared-major"}}})
	if got := cov.Rows[rowIndex(cov, "S9.compat.shared-major")].Checks; len(got) != 1 {
		t.Fatalf("a check naming a clause twice is listed %d times, want once", len(got))
	}
	if cov.Totals.Covered != 1 || cov.Totals.Covered+cov.Totals.Uncovered != len(Clauses()) {
		t.Fatalf("ComputeCoverage totals = %+v, want 1 covered of %d", cov.Totals, len(Clauses()))
	}
	var sum int
	for _, c := range cov.ByLevel {
		sum += c.Covered + c.Uncovered
	}
	if sum != len(Clauses()) {
		t.Fatalf("per-level counts sum to %d, want %d", sum, len(Clauses()))
	}
	var b strings.Builder
	if err := cov.Render(&b); err != nil || !strings.Contains(b.String(), "S9.compat.shared-major") {
		t.Fatalf("Render = %v, output lacks the covered clause", err)
	}
}

func rowIndex(cov Coverage, id string) int {
	for i, r := range cov.Rows {
		if r.Clause.ID == id {
			return i
		}
	}
	return -1
}
