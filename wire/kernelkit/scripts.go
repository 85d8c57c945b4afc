package kernelkit

import (
	"context"
	"slices"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// scriptChecks: the wire's own flow scripts (wire/clients/scripts) and every golden flow script
// the wire can drive — with the conformance extension when its driver needs it — each its own
// check with its own time limit (kernel/script/<name>, kernel/golden/<name>), holding the kernel's
// log and folded state to the in-process run's.
func scriptChecks() []Check {
	var out []Check
	own, err := clients.Scripts()
	if err != nil {
		panic("kernelkit: wire/clients/scripts: " + err.Error())
	}
	for _, k := range own {
		out = append(out, check("kernel/script/"+k.Name, spec.Must,
			"the wire's flow script "+k.Name+" ("+k.Driver.About+"), driven over the wire (start, park, resume, re-drive, complete, replay), leaves the log and folded state of its in-process run",
			caseRun(k), "A26.acceptance", "A26.carrier.methods", "I-WIRE-2", "I-WIRE-8", "I-WIRE-10", "I-WIRE-17"))
	}
	gs, _, err := clients.Goldens(true)
	if err != nil {
		panic("kernelkit: the golden corpus: " + err.Error())
	}
	for _, k := range gs {
		clauses := goldenClauses(k)
		for _, id := range k.Driver.Clauses {
			if _, ok := spec.Lookup(id); ok && !slices.Contains(clauses, id) {
				clauses = append(clauses, id)
			}
		}
		out = append(out, check("kernel/golden/"+k.Name, spec.Must,
			"golden "+k.Name+" ("+k.Driver.About+"), driven over the wire, leaves the log and folded state of its in-process run (a difference names the first divergent envelope and the statement that wrote it)",
			caseRun(k), clauses...))
	}
	return out
}

func caseRun(k clients.Case) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		_, err := driveCase(ctx, c, k)
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
