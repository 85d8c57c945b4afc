package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// DriverMethods are the methods that take a driver token: one syscall.<name> per syscall of the
// manifest's table, and execution.complete (docs/wire.md, "Who re-drives").
func DriverMethods() []string {
	var out []string
	for _, s := range manifest.Syscalls() {
		out = append(out, "syscall."+s.Name)
	}
	return append(out, carrier.MethodComplete)
}

// validArgs are arguments each driver method accepts from the seat's holder: a call the kernel
// would act on, so a kernel that lets another token through changes something.
var validArgs = map[string]string{
	"execute": `{"task":{"id":"fenced","toolId":"echo"},"input":1}`, "run": `{"stepId":"fenced","toolId":"echo","input":1}`,
	"decide": `{"id":"fenced","choice":1}`, "parallel": `{"branches":1}`, "suspend": `{"on":"fenced"}`, "sleep": `{"ms":1000}`,
	"sleepUntil": `{"wakeAt":1800000000000}`, "emit": `{"eventType":"kit.fenced","payload":1}`, "stream": `{"eventType":"kit.fenced","payload":1}`,
	"ui": `{"eventType":"kit.fenced","payload":1}`, "continueAsNew": `{"input":1}`, "receive": `{"topic":"fenced"}`, "select": `{"topics":["fenced"]}`,
}

// fencingChecks: one driver at a time holds an execution, proved by its token, on every driver
// method (I-WIRE-3): a call with no token is bad params, with another or a stale one fenced, and
// neither appends anything.
func fencingChecks() []kitCheck {
	var out []kitCheck
	for _, m := range DriverMethods() {
		out = append(out, check("kernel/fencing/"+m, spec.MustNot,
			m+" from a caller without the driver token (-32602), with another token or with the stale token of an earlier seat (-32002) is refused with nothing appended; the holder still drives",
			fenced(m), "I-WIRE-3", "I-WIRE-25", "A26.wire.kernel-authoritative"))
	}
	return append(out,
		check("kernel/fencing/execution.attach", spec.MustNot, "execution.attach while a driver holds the seat — with no token, another token or a stale one — is fenced (-32002) with nothing appended; the holder re-attaching with its token keeps the seat",
			kkFencedAttach, "I-WIRE-3", "A26.wire.kernel-authoritative"),
		check("kernel/fencing/execution.resumeAs", spec.MustNot, "execution.resumeAs of an execution a driver holds is fenced (-32002) with nothing appended",
			kkFencedResumeAs, "I-WIRE-3", "I-WIRE-15"),
	)
}

// heldWithStale starts an execution, parks it and resumes it with attach: the driver it returns
// holds the new seat, stale is the token of the seat the park ended.
func heldWithStale(ctx context.Context, c *Case, name string) (d *carrier.Driver, stale string, err error) {
	d, err = startExec(ctx, c, name)
	if err != nil {
		return nil, "", err
	}
	stale = d.Token
	if err := park(ctx, c, d, "held"); err != nil {
		return nil, "", err
	}
	if err := resumeAttached(ctx, c, d, "held", true); err != nil {
		return nil, "", err
	}
	return d, stale, nil
}

func fenced(method string) func(context.Context, *Case) error {
	return func(ctx context.Context, c *Case) error {
		if err := needMethods(ctx, c, method); err != nil {
			return err
		}
		d, stale, err := heldWithStale(ctx, c, "fence")
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(method, "syscall.")
		call := func(token *string) error {
			p := map[string]any{"executionId": d.ExecutionID}
			if token != nil {
				p["driver"] = *token
			}
			if method == carrier.MethodComplete {
				p["output"] = "fenced"
			} else {
				p["args"] = json.RawMessage(validArgs[name])
			}
			return c.Store.Call(ctx, method, p, nil)
		}
		other, old := "not-the-driver", stale
		variants := []struct {
			what  string
			token *string
			code  int
		}{
			{"no driver member", nil, carrier.CodeInvalidParams},
			{"another driver's token", &other, carrier.CodeFenced},
			{"the stale token of the seat the park ended", &old, carrier.CodeFenced},
		}
		for i, v := range variants {
			c.Progress(i, len(variants)+1)
			err := appendsNothing(ctx, c, d.ExecutionID, method+" with "+v.what, func() error {
				return wantError(c, method, v.what, call(v.token), v.code, "")
			})
			if err != nil {
				return err
			}
		}
		if method == "syscall.stream" || method == "syscall.ui" {
			if err := fencedStream(ctx, c, d, name, stale); err != nil {
				return err
			}
		}
		// the holder still drives: its re-drive is answered from the log
		v, parked, err := d.Syscall(ctx, "suspend", json.RawMessage(`{"on":"held"}`))
		if err != nil || parked || !sameJSON(v, "true") {
			return c.Failf("syscall.suspend", `{"on":"held"} by the holder after the refusals`, fmt.Sprintf("value %s parked %v error %v", v, parked, err), "true (the recorded answer)")
		}
		return nil
	}
}

// fencedStream sends the streaming form of a channel syscall with a stale token: the answer is the
// -32002 response, no chunk is acknowledged, nothing is appended.
func fencedStream(ctx context.Context, c *Case, d *carrier.Driver, name, stale string) error {
	return appendsNothing(ctx, c, d.ExecutionID, "the streaming form of syscall."+name+" with a stale token", func() error {
		lines, err := postStream(ctx, c, "syscall."+name, d.ExecutionID, stale, "kit.fenced", `"a"`, `"b"`)
		if err != nil {
			return c.Failf("POST syscall."+name, "streaming form, stale token", err, "an NDJSON answer")
		}
		last := lines[len(lines)-1]
		var r carrier.Response
		if len(lines) != 1 || json.Unmarshal([]byte(last), &r) != nil || r.Error == nil || r.Error.Code != carrier.CodeFenced {
			return c.Failf("POST syscall."+name, "streaming form, stale token", jsonLines(lines), "one line: the JSON-RPC error -32002, no chunk acknowledged")
		}
		return nil
	})
}

func kkFencedAttach(ctx context.Context, c *Case) error {
	d, stale, err := heldWithStale(ctx, c, "fence-attach")
	if err != nil {
		return err
	}
	for i, tok := range []string{"", "not-the-driver", stale} {
		c.Progress(i, 4)
		what := map[int]string{0: "no token", 1: "another token", 2: "the stale token"}[i]
		err := appendsNothing(ctx, c, d.ExecutionID, "execution.attach with "+what, func() error {
			p := map[string]any{"executionId": d.ExecutionID}
			if tok != "" {
				p["driver"] = tok
			}
			var a carrier.Attached
			err := c.Store.Call(ctx, carrier.MethodAttach, p, &a)
			if err == nil {
				return c.Failf(carrier.MethodAttach, "with "+what+" while a driver holds the seat", "attached with driver "+a.Driver, "error -32002 (fenced)")
			}
			return wantError(c, carrier.MethodAttach, "with "+what+" while a driver holds the seat", err, carrier.CodeFenced, "")
		})
		if err != nil {
			return err
		}
	}
	a, err := attach(ctx, c, d.ExecutionID, d.Token)
	if err != nil {
		return err
	}
	d.Token = a.Driver
	if _, err := syscall(ctx, c, d, "suspend", `{"on":"held"}`); err != nil {
		return err
	}
	return nil
}

func kkFencedResumeAs(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "fence-resumeas")
	if err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "execution.resumeAs of a held execution", func() error {
		err := c.Store.Call(ctx, carrier.MethodResumeAs, map[string]any{"executionId": d.ExecutionID, "flowId": "kit.other", "attach": true}, nil)
		return wantError(c, carrier.MethodResumeAs, d.ExecutionID+" (a driver holds it)", err, carrier.CodeFenced, "")
	})
}
