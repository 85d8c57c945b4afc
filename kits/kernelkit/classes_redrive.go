package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// redriveClassChecks: what a re-drive after a park serves and what it runs again: a degraded
// typed failure is untyped, so it runs again (§4.1, §2), and an emit after a decision the re-run
// made live is appended (§3 Serving).
func redriveClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/redrive/degraded-rerun", spec.Must, "a typed failure on a channel its tool does not declare (fail-undeclared) degrades to an untyped failure, -32020 (kind step-failed); re-driven after a park and its resume, the step runs again — -32020 again, never the typed -32021, and the log gains its STEP_STARTED attempt 2",
			kkRedriveDegraded, "S41.typed.degrade-loudly", "S41.typed.untyped-at-least-once", "I-WIRE-25"),
		check("kernel/redrive/emit-after-live-decision", spec.Must, "re-driven after a park and its resume, an emit the log already holds stamped, made after a decision the re-run records live (a new decide id), is appended again",
			kkRedriveEmitAfterLive, "S3.emit.serve-skip", "S3.emit.serve-append"),
	}
}

// redrivePark parks d's run on gate g and resumes it with attach, for a re-drive.
func redrivePark(ctx context.Context, c *Case, d *carrier.Driver) error {
	if err := park(ctx, c, d, "g"); err != nil {
		return err
	}
	return resumeAttached(ctx, c, d, "g", 1)
}

func kkRedriveDegraded(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "redrive-degraded")
	if err != nil {
		return err
	}
	const step = `{"task":{"id":"d","toolId":"fail-undeclared"},"input":1}`
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(step))
	if err := wantCode(c.Cite("S41.typed.degrade-loudly", "I-WIRE-25").Failf, "syscall.execute", step, err, carrier.CodeStepFailed, "step-failed"); err != nil {
		return err
	}
	if err := redrivePark(ctx, c, d); err != nil {
		return err
	}
	_, _, err = d.Syscall(ctx, "execute", json.RawMessage(step))
	what := step + " (re-driven after a park on g and its resume; it degraded the first time)"
	if err := wantCode(c.Cite("S41.typed.untyped-at-least-once", "I-WIRE-25").Failf, "syscall.execute", what, err, carrier.CodeStepFailed, "step-failed"); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var attempts []string
	for _, e := range log {
		if e.EventType == manifest.StepStarted {
			var p struct {
				StepID  string `json:"stepId"`
				Attempt int    `json:"attempt"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			attempts = append(attempts, fmt.Sprintf("%s attempt %d", p.StepID, p.Attempt))
		}
	}
	return c.Cite("S41.typed.untyped-at-least-once").Diff("log", d.ExecutionID+" after "+what+" (STEP_STARTED)", []string{"d attempt 1", "d attempt 2"}, attempts)
}

func kkRedriveEmitAfterLive(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "redrive-emit")
	if err != nil {
		return err
	}
	const emit = `{"eventType":"x.note","payload":{"n":1}}`
	if _, err := syscall(ctx, c, d, "emit", emit); err != nil {
		return err
	}
	if err := redrivePark(ctx, c, d); err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "decide", `{"id":"fresh","choice":"a"}`); err != nil {
		return err
	}
	before, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if _, err := syscall(ctx, c, d, "emit", emit); err != nil {
		return err
	}
	after, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	var added []string
	for _, e := range after[min(len(before), len(after)):] {
		added = append(added, e.EventType)
	}
	return c.Cite("S3.emit.serve-append").Diff("log", d.ExecutionID+" after syscall.emit "+emit+" (re-driven after a park and its resume, made after decide {id: fresh}, which the re-run recorded live)",
		[]string{"x.note"}, added)
}
