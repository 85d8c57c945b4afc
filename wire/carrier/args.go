package carrier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// argFields are the argument members each syscall takes over the wire (kernel.Context.Call's
// shapes). A member outside them is refused before the kernel sees the call: a client cannot smuggle
// envelope fields (metadata, a flowEmit stamp, a sequence) through a syscall. A syscall the table
// gains before this list knows it passes its arguments to the kernel, which refuses what it does
// not understand.
var argFields = map[string][]string{
	"execute":       {"task", "input"},
	"run":           {"stepId", "toolId", "input"},
	"decide":        {"id", "choice", "error", "context", "policy"},
	"parallel":      {"branches", "end", "join"},
	"suspend":       {"on", "timeoutMs", "wakeAt", "correlationKey"},
	"sleep":         {"ms"},
	"sleepUntil":    {"wakeAt"},
	"emit":          {"eventType", "payload"},
	"stream":        {"eventType", "payload"},
	"ui":            {"eventType", "payload"},
	"continueAsNew": {"input"},
	"receive":       {"topic"},
	"select":        {"topics"},
}

var taskFields = []string{"id", "kind", "toolId", "timeoutMs", "atMostOnce", "errors"}

// checkArgs refuses arguments that are not an object or hold a member the syscall does not take.
func checkArgs(syscall string, args json.RawMessage) error {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	allowed, known := argFields[syscall]
	bad, task, hasTask, ok := strays(t, allowed, "task")
	if !ok {
		return fmt.Errorf("params.args must be an object")
	}
	if !known {
		return nil
	}
	if err := unknownField("params.args", bad, allowed); err != nil {
		return err
	}
	if !hasTask || string(task) == "null" {
		return nil
	}
	bad, _, _, ok = strays(task, taskFields, "")
	if !ok {
		return fmt.Errorf("params.args.task must be an object")
	}
	return unknownField("params.args.task", bad, taskFields)
}

// strays walks the object obj: the names of its members outside allowed, and the value of its
// last member named want (the one a decoder keeps). ok is false when obj is not an object.
func strays(obj []byte, allowed []string, want string) (bad []string, wanted []byte, found, ok bool) {
	ok = eachMember(obj, func(k, v []byte) bool {
		name := memberName(k)
		if !slices.Contains(allowed, name) {
			bad = append(bad, name)
		}
		if want != "" && name == want {
			wanted, found = v, true
		}
		return true
	})
	return bad, wanted, found, ok
}

// unknownField names the first (in sorted order) of the members outside allowed.
func unknownField(where string, bad, allowed []string) error {
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("%s: unknown field %q (this syscall takes %v)", where, bad[0], allowed)
}

// checkBudget refuses a per-execution budget (execution.start's budget, I-WIRE-17) whose caps are
// not finite and non-negative.
func checkBudget(b kernel.Budget) *bridge.RPCError {
	dims := make([]string, 0, len(b))
	for d := range b {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		if v := b[d]; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || d == "" {
			return rpcErr(CodeInvalidParams, "params", fmt.Sprintf("execution.start: params.budget.%s: want a finite, non-negative number, got %v", d, v), "field", "budget."+d)
		}
	}
	return nil
}
