package spec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// Prove counts a clause proven only for a kill of a mutant violating it by a check linked to it —
// a kill credits none of the mutant's other clauses (I-COV-4); without records the report says
// not measured.
func TestProveCountsOnlyLinkedKills(t *testing.T) {
	checks := []Check{
		{ID: "c/linked", Kind: KindTest, Clauses: []string{"S3.emit.once"}, Where: "x:T"},
		{ID: "c/other", Kind: KindTest, Clauses: []string{"S3.emit.identity"}, Where: "x:U"},
	}
	mutants := []Mutant{
		{ID: "m/a/once", Kind: "m", Clauses: []string{"S3.emit.once"}, CaughtBy: []string{"c/linked"}, Where: "x:T"},
		{ID: "m/a/identity", Kind: "m", Clauses: []string{"S3.emit.identity"}, CaughtBy: []string{"c/linked"}, Where: "x:T"},
		{ID: "m/a/both", Kind: "m", Clauses: []string{"S3.emit.once", "S3.emit.segment"}, CaughtBy: []string{"c/linked"}, Where: "x:T"},
		{ID: "m/a/never", Kind: "m", Clauses: []string{"S3.emit.segment"}, CaughtBy: []string{"c/other"}, Where: "x:U"},
	}
	cov := ComputeCoverage(checks)
	var out bytes.Buffer
	if err := cov.RenderProof(&out); err != nil || !strings.Contains(out.String(), "not measured") {
		t.Errorf("RenderProof without records = %q, want it to say not measured", out.String())
	}
	for _, r := range cov.Rows {
		if r.Proven != nil {
			t.Fatalf("row %s proven = %v before Prove, want nil (not measured)", r.Clause.ID, *r.Proven)
		}
	}
	cov.Prove(mutants, []Kill{
		{Mutant: "m/a/once", Check: "c/linked"},     // proves S3.emit.once
		{Mutant: "m/a/identity", Check: "c/linked"}, // c/linked is not linked to S3.emit.identity: proves nothing
		{Mutant: "m/a/both", Check: "c/linked"},     // proves S3.emit.once, not S3.emit.segment
		{Mutant: "m/unregistered", Check: "c/linked"},
	})
	got := map[string]bool{}
	for _, r := range cov.Rows {
		if r.Proven == nil {
			t.Fatalf("row %s proven = nil after Prove", r.Clause.ID)
		}
		got[r.Clause.ID] = *r.Proven
	}
	if !got["S3.emit.once"] || got["S3.emit.identity"] || got["S3.emit.segment"] {
		t.Errorf("proven once/identity/segment = %v/%v/%v, want true/false/false", got["S3.emit.once"], got["S3.emit.identity"], got["S3.emit.segment"])
	}
	p := cov.Proof
	if p.Killed != 3 || len(p.Survived) != 1 || p.Survived[0] != "m/a/never" || len(p.Unknown) != 1 {
		t.Errorf("Proof killed %d, survived %v, unknown %v; want 3, [m/a/never], [m/unregistered]", p.Killed, p.Survived, p.Unknown)
	}
	if want := "[m/a/both × S3.emit.segment m/a/identity × S3.emit.identity]"; p.Pairs != 5 || fmt.Sprint(p.UnprovenPairs) != want {
		t.Errorf("Proof pairs %d, unproven pairs %v; want 5, %s", p.Pairs, p.UnprovenPairs, want)
	}
	if p.SpecMust.Proven != 1 || p.SpecMust.Clauses == 0 || p.SpecMust.Linked != 2 {
		t.Errorf("SpecMust = %+v, want 1 proven of the spec MUST clauses, 2 linked", p.SpecMust)
	}
	var why string
	for _, u := range p.SpecMustUnproven {
		if strings.HasPrefix(u, "S3.emit.identity:") {
			why = u
		}
	}
	if !strings.Contains(why, "not linked") {
		t.Errorf("unproven reason for S3.emit.identity = %q, want it to say its kills were by checks not linked to it", why)
	}
}

// The proof tallies each requirement and tier, the keyword MUSTs, and the clauses one mutant's
// kills alone prove.
func TestProveTalliesTiersKeywordsAndSingleMutants(t *testing.T) {
	checks := []Check{
		{ID: "c/emit", Kind: KindTest, Clauses: []string{"S3.emit.once", "S5.ingress.gate-match"}, Where: "x:T"},
		{ID: "c/edges", Kind: KindKit, Clauses: []string{"I-STORE-50", "I-BRIDGE-3"}, Where: "kit"},
	}
	mutants := []Mutant{
		{ID: "m/a/one", Kind: "m", Clauses: []string{"S3.emit.once", "S5.ingress.gate-match"}, CaughtBy: []string{"c/emit"}, Where: "x:T"},
		{ID: "m/a/two", Kind: "m", Clauses: []string{"S3.emit.once"}, CaughtBy: []string{"c/emit"}, Where: "x:T"},
		{ID: "m/a/order", Kind: "m", Clauses: []string{"I-STORE-50"}, CaughtBy: []string{"c/edges"}, Where: "kit"},
	}
	cov := ComputeCoverage(checks)
	cov.Prove(mutants, []Kill{{Mutant: "m/a/one", Check: "c/emit"}, {Mutant: "m/a/two", Check: "c/emit"}, {Mutant: "m/a/order", Check: "c/edges"}})
	p := cov.Proof
	// S3.emit.once rests on two mutants; S5.ingress.gate-match and I-STORE-50 on one each.
	if want := "[S5.ingress.gate-match (m/a/one) I-STORE-50 (m/a/order)]"; fmt.Sprint(p.SingleMutant) != want {
		t.Errorf("SingleMutant = %v, want %s", p.SingleMutant, want)
	}
	// S5.ingress.gate-match carries the keyword MUST; S3.emit.once is declarative.
	if p.KeywordMust.Proven != 1 || p.KeywordMust.Clauses >= p.SpecMust.Clauses || p.KeywordMust.Clauses == 0 {
		t.Errorf("KeywordMust = %+v (SpecMust %+v), want 1 proven of fewer clauses than SpecMust", p.KeywordMust, p.SpecMust)
	}
	if got := p.ByRequirement[Recommended]; got.Proven != 1 || got.Linked != 1 {
		t.Errorf("ByRequirement[recommended] = %+v, want I-STORE-50 linked and proven", got)
	}
	if got := p.ByRequirement[Required]; got.Proven != 2 || got.Linked != 3 {
		t.Errorf("ByRequirement[required] = %+v, want 2 proven of 3 linked", got)
	}
	if got := p.ByTier[TierChoice]; got.Proven != 1 {
		t.Errorf("ByTier[choice] = %+v, want 1 proven", got)
	}
	if got := p.ByTier[TierProtocol]; got.Linked != 1 || got.Proven != 0 {
		t.Errorf("ByTier[protocol] = %+v, want I-BRIDGE-3 linked, not proven", got)
	}
	var out bytes.Buffer
	if err := cov.RenderProof(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"choice (recommended)", "with the RFC 2119 keyword", "single mutant (2 of 3 proven)", "  I-STORE-50 (m/a/order)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("RenderProof lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := cov.Render(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TIER", "I-STORE-50  ", "choice (recommended)", "REQUIREMENT"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Render lacks %q", want)
		}
	}
	for _, r := range cov.Rows {
		if r.Clause.ID == "I-STORE-50" && r.Requirement != Recommended {
			t.Errorf("row I-STORE-50 requirement = %s, want recommended", r.Requirement)
		}
	}
}
