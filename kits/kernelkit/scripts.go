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
// log and folded state to the in-process run's (runCheck: up to our choices, required, and
// exactly, recommended).
func scriptChecks() []kitCheck {
	var out []kitCheck
	own, err := clients.Scripts()
	if err != nil {
		panic("kernelkit: wire/clients/scripts: " + err.Error())
	}
	for _, k := range own {
		out = append(out, runCheck("kernel/script/"+k.Name,
			"the wire's flow script "+k.Name+" ("+k.Driver.About+"), driven over the wire (start, park, resume, re-drive, complete, replay)",
			k, "A26.acceptance", "A26.carrier.methods", "I-WIRE-2", "I-WIRE-8", "I-WIRE-10", "I-WIRE-17"))
	}
	gs, _, err := clients.Goldens(true)
	if err != nil {
		panic("kernelkit: the golden corpus: " + err.Error())
	}
	for _, k := range gs {
		out = append(out, runCheck("kernel/golden/"+k.Name, "golden "+k.Name+" ("+k.Driver.About+"), driven over the wire", k, goldenClauses(k)...))
	}
	return out
}

// runCheck is the check of one flow-script case k: two assertions over one drive (comparison).
// The required one compares the kernel's run with the in-process one up to the freedoms k touches
// (freedoms.go) and cites clauses, with the driver's spec, ADR and protocol clauses; the
// recommended one compares the run exactly and cites those freedoms' choices. A choice the
// driver names that no freedom aligns stays with the required comparison (docs/wire.md lists
// them: the flow's outcome or the driver's own actions rest on it), never dropped.
func runCheck(id, about string, k clients.Case, clauses ...string) kitCheck {
	ours := touchedFreedoms(k)
	required := slices.DeleteFunc(slices.Clone(clauses), func(c string) bool { return slices.Contains(ours, c) })
	for _, c := range append(slices.Clone(k.Driver.Clauses), enforcedBy(k)...) {
		if _, ok := spec.Lookup(c); ok && !slices.Contains(required, c) && !slices.Contains(ours, c) {
			required = append(required, c)
		}
	}
	doc := about + "; the run leaves the log and folded state of its in-process run (a difference names the first divergent envelope and the statement that wrote it)"
	if len(ours) > 0 {
		doc += ", up to the choices " + strings.Join(ours, ", ") + " (required), and exactly, written as the reference kernel's choices write it (recommended)"
	}
	run := func(ctx context.Context, c *Case) error {
		_, err := driveCase(ctx, c, k, comparison{required: required, ours: ours})
		return err
	}
	if len(ours) == 0 {
		return check(id, spec.Must, doc, run, required...)
	}
	return choiceCheck(id, spec.Must, doc, run, required, ours)
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
