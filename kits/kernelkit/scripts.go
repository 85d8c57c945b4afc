package kernelkit

import (
	"context"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// scriptChecks: the wire's own flow scripts (wire/clients/scripts) and every golden flow script
// the wire can drive — with the conformance extension when its driver needs it — each its own
// check with its own time limit (kernel/script/<name>, kernel/golden/<name>), holding the kernel's
// log and folded state to the in-process run's (runChecks: up to our choices, and exactly in a
// recommended <id>/log).
func scriptChecks() []Check {
	var out []Check
	own, err := clients.Scripts()
	if err != nil {
		panic("kernelkit: wire/clients/scripts: " + err.Error())
	}
	for _, k := range own {
		out = append(out, runChecks("kernel/script/"+k.Name,
			"the wire's flow script "+k.Name+" ("+k.Driver.About+"), driven over the wire (start, park, resume, re-drive, complete, replay)",
			k, "A26.acceptance", "A26.carrier.methods", "I-WIRE-2", "I-WIRE-8", "I-WIRE-10", "I-WIRE-17")...)
	}
	gs, _, err := clients.Goldens(true)
	if err != nil {
		panic("kernelkit: the golden corpus: " + err.Error())
	}
	for _, k := range gs {
		out = append(out, runChecks("kernel/golden/"+k.Name, "golden "+k.Name+" ("+k.Driver.About+"), driven over the wire", k, goldenClauses(k)...)...)
	}
	return out
}

// runChecks are the checks of one flow-script case k. The required check id compares the kernel's
// run with the in-process one up to the freedoms k touches (freedoms.go); where k's driver names a
// choice no freedom aligns, it compares the outcome instead, unless the choice shapes the outcome
// itself (outcomeChoice), when it stays whole and cites the choice. The recommended check id/log
// compares the run exactly and cites only the choices. The driver's spec, ADR and protocol clauses
// join clauses.
func runChecks(id, about string, k clients.Case, clauses ...string) []Check {
	clauses = slices.Clone(clauses)
	var named []string // the choices the case's driver names
	for _, c := range k.Driver.Clauses {
		if cl, ok := spec.Lookup(c); ok && !slices.Contains(clauses, c) {
			if cl.Requirement() == spec.Recommended {
				named = append(named, c)
			} else {
				clauses = append(clauses, c)
			}
		}
	}
	touched := touchedFreedoms(k)
	choices := slices.Clone(touched)
	for _, c := range named {
		if !slices.Contains(choices, c) {
			choices = append(choices, c)
		}
	}
	whole := "; the run leaves the log and folded state of its in-process run (a difference names the first divergent envelope and the statement that wrote it)"
	upTo := ""
	if len(touched) > 0 {
		upTo = ", up to the choices " + strings.Join(touched, ", ") + " (the reference's form is " + id + "/log's)"
	}
	cmp, what := upToChoices, about+whole+upTo
	unaligned := slices.ContainsFunc(named, func(c string) bool { return !slices.Contains(touched, c) })
	switch {
	case slices.ContainsFunc(named, outcomeChoice):
		// the flow's outcome, or the drive itself, rests on the choice: docs/wire.md lists it among
		// the choices required checks hold a kernel to
		clauses = append(clauses, named...)
		if len(touched) == 0 {
			choices = nil
		}
	case unaligned:
		cmp, what = outcomeOnly, about+"; the run ends as its in-process run does: each execution's status, _input, _output and _error (the log is "+id+"/log's)"
	}
	out := []Check{check(id, spec.Must, what, caseRun(k, cmp), clauses...)}
	if len(choices) > 0 {
		out = append(out, check(id+"/log", spec.Must, about+whole+", written as the reference kernel's choices "+strings.Join(choices, ", ")+" write it",
			caseRun(k, wholeRun), choices...))
	}
	return out
}

// outcomeChoice reports whether a choice shapes what a golden's flow returns or what its driver
// may do — a channel map's reach (I-KERNEL-12), which steps park in doubt (I-KERNEL-14) — so that
// a golden exercising it cannot be split into a required outcome and a recommended log.
func outcomeChoice(id string) bool {
	return slices.Contains([]string{"I-KERNEL-12", "I-KERNEL-14"}, id)
}

func caseRun(k clients.Case, cmp comparison) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		_, err := driveCase(ctx, c, k, cmp)
		return err
	}
}

// goldenClauses are the wire's clauses a golden's drive exercises: the acceptance and driving
// rules, and those of the methods and arguments its script and driver use.
func goldenClauses(k clients.Case) []string {
	out := []string{"A26.acceptance", "A26.wire.kernel-authoritative", "I-WIRE-10", "I-WIRE-18"}
	add := func(ok bool, ids ...string) {
		if ok {
			out = append(out, ids...)
		}
	}
	has := func(do string) bool {
		return slices.ContainsFunc(k.Driver.Actions, func(a flowscript.DriverAction) bool { return a.Do == do })
	}
	add(len(clients.Features(k.Script, k.Driver)) > 0, "I-WIRE-21")
	add(len(clients.Extension(k.Script, k.Driver)) > 0, "I-WIRE-24")
	add(has("resumeAs"), "I-WIRE-15")
	add(has("deliver"), "I-WIRE-20")
	add(k.Driver.Budget != nil, "I-WIRE-17")
	add(stmtIn(k.Script.Body, func(st flowscript.Stmt) bool { return st.Op == "parallel" }), "I-WIRE-11")
	add(stmtIn(k.Script.Body, func(st flowscript.Stmt) bool {
		return st.Op == "decide" && (st.Fails || st.Context != nil || st.Policy != nil) || st.Op == "execute" && (st.TimeoutMs > 0 || st.AtMostOnce || st.Errors != nil)
	}), "I-WIRE-16")
	return out
}

func stmtIn(body []flowscript.Stmt, match func(flowscript.Stmt) bool) bool {
	_, _, ok := findStmt("body", body, match)
	return ok
}
