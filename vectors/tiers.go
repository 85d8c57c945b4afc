package vectors

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// A vector makes one of these comparisons, each citing its own clauses (a tier per assertion,
// DESIGN §7.1), so a failure binds as what failed does:
//
//   - a vector that expects a state: the answer is that state, citing every clause of the vector;
//     with choicePaths, the state outside them citing the required clauses and each choice's
//     paths citing that choice (choicepaths.go);
//   - a vector that expects an error, answered with anything but a refusal (a state, unsupported,
//     internal): the input is refused at all, citing the vector's required clauses (all of them
//     when it names none);
//   - the same vector answered with another refusal: the refusal has that error kind, citing the
//     vector's choices (all of its clauses when it names none), since which kind names a
//     malformed input is a choice (I-FOLD-1, I-FOLD-22, I-FOLD-23, I-FOLD-16, I-FOLD-24).
//
// A failure whose assertion cites only choices is a recommendation not met: it blocks the run only
// under --strict (Config.Strict).

// failedAssertions are the comparisons a failed vector broke, most binding first, each with the
// lines that say it in the failure grammar; gotErr is the error kind answered ("" for an output).
func failedAssertions(v Vector, want, got, wantErr, gotErr string) ([]kits.FailedAssertion, []string) {
	o := op(v)
	line := func(a kits.FailedAssertion, got, want string) string {
		return fmt.Sprintf("vector/%s [%s]: %s = %s, want %s", v.ID, clauseList(a.Clauses), a.Op, clipS(got, 300), clipS(want, 300))
	}
	one := func(a kits.FailedAssertion) ([]kits.FailedAssertion, []string) {
		return []kits.FailedAssertion{a}, []string{line(a, got, want)}
	}
	switch {
	case wantErr == "" && gotErr == "" && len(v.ChoicePaths) > 0:
		if as, lines := choiceAssertions(v, o, []byte(want), []byte(got), line); len(as) > 0 {
			return as, lines
		}
		return one(kits.NewFailedAssertion(spec.Must, o, v.Clauses))
	case wantErr == "":
		return one(kits.NewFailedAssertion(spec.Must, o, v.Clauses))
	case slices.Contains(ErrorKinds(v.Kind), gotErr):
		return one(kits.NewFailedAssertion(spec.Must, o+" error kind", kindClauses(v.Clauses)))
	}
	return one(kits.NewFailedAssertion(spec.Must, o+" refused", refusalClauses(v.Clauses)))
}

// choiceAssertions compares a state answer with a vector's expected state as choicepaths.go
// describes: outside the choice paths (required clauses), then each choice's paths (that choice).
func choiceAssertions(v Vector, o string, want, got []byte, line func(kits.FailedAssertion, string, string) string) ([]kits.FailedAssertion, []string) {
	var as []kits.FailedAssertion
	var lines []string
	var all []string
	for _, cp := range v.choicePathList() {
		all = append(all, cp[1])
	}
	if w, g := masked(want, all), masked(got, all); string(w) != string(g) {
		a := kits.NewFailedAssertion(spec.Must, o+" outside its choice paths", refusalClauses(v.Clauses))
		as, lines = append(as, a), append(lines, line(a, string(g), string(w)))
	}
	wants, gots := valuesAt(want, all), valuesAt(got, all)
	for _, c := range v.Clauses {
		var differ, gotVals, wantVals []string
		for _, p := range v.ChoicePaths[c] {
			w := wants[p]
			g, ok := gots[p]
			if !ok {
				g = "(absent)"
			}
			if g != w {
				differ, gotVals, wantVals = append(differ, p), append(gotVals, g), append(wantVals, w)
			}
		}
		if len(differ) == 0 {
			continue
		}
		at := strings.Join(differ, " ")
		if len(differ) > 3 {
			at = fmt.Sprintf("%s (and %d more)", strings.Join(differ[:3], " "), len(differ)-3)
		}
		a := kits.NewFailedAssertion(spec.Must, o+" at "+at, []string{c})
		as, lines = append(as, a), append(lines, line(a, strings.Join(gotVals, " "), strings.Join(wantVals, " ")))
	}
	return as, lines
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

// FailedClauses are the clauses x's failing assertions cite, in the order of x's clauses: what a
// failure proves broken (a kill of a mutant counts for these only); x's clauses when it names no
// failing assertion.
func (x Result) FailedClauses() []string {
	if len(x.Failed) == 0 {
		return x.Clauses
	}
	var out []string
	for _, c := range x.Clauses {
		if slices.ContainsFunc(x.Failed, func(a kits.FailedAssertion) bool { return slices.Contains(a.Clauses, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// clauseList is clauses as the failure grammar prints them.
func clauseList(clauses []string) string { return strings.Join(clauses, " ") }
