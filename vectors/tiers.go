package vectors

import (
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// A vector makes one of three comparisons, each citing its own clauses (a tier per assertion,
// DESIGN §7.1), so a failure binds as what failed does:
//
//   - a vector that expects a state: the answer is that state, citing every clause of the vector;
//   - a vector that expects an error, answered with anything but a refusal (a state, unsupported,
//     internal): the input is refused at all, citing the vector's required clauses (all of them
//     when it names none);
//   - the same vector answered with another refusal: the refusal has that error kind, citing the
//     vector's choices (all of its clauses when it names none), since which kind names a
//     malformed input is a choice (I-FOLD-1, I-FOLD-22, I-FOLD-23, I-FOLD-16, I-FOLD-24).
//
// A failure whose assertion cites only choices is a recommendation not met: it blocks the run only
// under --strict (Config.Strict).

// failedAssertion is the comparison a failed vector broke; gotErr is the error kind answered ("" for
// an output).
func failedAssertion(v Vector, wantErr, gotErr string) kits.FailedAssertion {
	o := op(v)
	switch {
	case wantErr == "":
		return kits.NewFailedAssertion(spec.Must, o, v.Clauses)
	case slices.Contains(ErrorKinds(v.Kind), gotErr):
		return kits.NewFailedAssertion(spec.Must, o+" error kind", kindClauses(v.Clauses))
	}
	return kits.NewFailedAssertion(spec.Must, o+" refused", refusalClauses(v.Clauses))
}

// refusalClauses are what "the input is refused at all" cites: the required clauses among
// clauses, or all of them when none is required.
func refusalClauses(clauses []string) []string {
	return pick(clauses, spec.Required)
}

// kindClauses are what "the refusal has this error kind" cites: the choices among clauses, or all
// of them when none is a choice.
func kindClauses(clauses []string) []string {
	return pick(clauses, spec.Recommended)
}

func pick(clauses []string, want spec.Requirement) []string {
	var out []string
	for _, id := range clauses {
		if spec.RequirementOf([]string{id}) == want {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return clauses
	}
	return out
}

// requirementOf is how a result binds: a failure as its failing assertions do (kits.Binding), any
// other verdict as the vector's clauses do.
func requirementOf(clauses []string, v Verdict, failed []kits.FailedAssertion) spec.Requirement {
	if v != Fail {
		return spec.CheckRequirement(spec.Must, clauses)
	}
	return kits.Binding(spec.Must, clauses, kits.Fail, failed)
}

// Binds is how x binds the run: its Requirement, or for a result read from a report that does not
// carry one, as its clauses do.
func (x Result) Binds() spec.Requirement {
	if x.Requirement != "" {
		return x.Requirement
	}
	return requirementOf(x.Clauses, x.Verdict, x.Failed)
}

// NotMet reports whether x is a recommendation not met: a failure the ledger does not list whose
// failing assertions cite only choices.
func (x Result) NotMet() bool {
	return x.Verdict == Fail && x.Expected == "" && x.Binds() == spec.Recommended
}

// Blocks reports whether x keeps the run from passing: an unknown verdict, or a failure the ledger
// does not list that is required (or, under --strict, a recommendation not met).
func (r Report) Blocks(x Result) bool {
	switch {
	case x.Verdict == Unknown:
		return true
	case x.Verdict != Fail || x.Expected != "":
		return false
	}
	return r.Meta.Strict || x.Binds() == spec.Required
}

// FailedLines are x's failing assertions, one line each, as every surface names them.
func (x Result) FailedLines() []string {
	var out []string
	for _, a := range x.Failed {
		out = append(out, a.Label())
	}
	return out
}

// clauseList is clauses as the failure grammar prints them.
func clauseList(clauses []string) string { return strings.Join(clauses, " ") }
