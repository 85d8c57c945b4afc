package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// timerClassChecks: the wakeAt a timed park records, read where any kernel shows it — getState's
// _suspendedOn and the log's EXECUTION_SUSPENDED — with no clock extension (spec §5, I-WIRE-47).
func timerClassChecks() []kitCheck {
	return []kitCheck{
		check("kernel/timer/wakeat", spec.Must, "the wakeAt a timed park records, in getState's _suspendedOn and in the log's EXECUTION_SUSPENDED alike, is an epoch instant: sleep {ms} records the kernel's clock, read between the execution's start and the timer's firing (its log's timestamps, within a second), plus ms; sleepUntil {wakeAt} records the instant given to the millisecond (1800000000123, not a truncation of it)",
			kkTimerWakeAt, "S5.timer.durable-wakeat", "I-WIRE-47"),
	}
}

// recordedWakeAt reads the wakeAt of the execution's timed park from getState and from the log's
// last EXECUTION_SUSPENDED, which must agree.
func recordedWakeAt(ctx context.Context, c *Case, id, what string) (int64, error) {
	_, fromState, err := timedPark(ctx, c, id)
	if err != nil {
		return 0, err
	}
	log, err := logOf(ctx, c, id)
	if err != nil {
		return 0, err
	}
	var fromLog *int64
	for _, e := range log {
		if e.EventType == manifest.ExecutionSuspended {
			var p struct {
				WakeAt *int64 `json:"wakeAt"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			fromLog = p.WakeAt
		}
	}
	if fromLog == nil || *fromLog != fromState {
		got := "no wakeAt"
		if fromLog != nil {
			got = fmt.Sprint(*fromLog)
		}
		return 0, c.Cite("S5.timer.durable-wakeat").Failf("log", id+" after "+what+" (EXECUTION_SUSPENDED.wakeAt)", got, fmt.Sprintf("%d (getState's _suspendedOn.wakeAt)", fromState))
	}
	return fromState, nil
}

func kkTimerWakeAt(ctx context.Context, c *Case) error {
	const ms, at = 60000, 1_800_000_000_123
	c.Progress(0, 2)
	d, err := startExec(ctx, c, "wakeat-sleep")
	if err != nil {
		return err
	}
	args := fmt.Sprintf(`{"ms":%d}`, ms)
	if _, parked, err := d.Syscall(ctx, "sleep", json.RawMessage(args)); err != nil || !parked {
		return c.Failf("syscall.sleep", args, show(err, "answered without parking"), "parked")
	}
	wakeAt, err := recordedWakeAt(ctx, c, d.ExecutionID, "syscall.sleep "+args)
	if err != nil {
		return err
	}
	if err := resumeAttached(ctx, c, d, manifest.TimerFired, map[string]int64{"wakeAt": wakeAt}); err != nil {
		return err
	}
	log, err := logOf(ctx, c, d.ExecutionID)
	if err != nil {
		return err
	}
	if len(log) > 0 {
		// a second's slack each side: a kernel may stamp envelopes with a coarser clock than the
		// one it reads for a wakeAt; a wakeAt relative to nothing is decades off
		const slack = 1000
		from, to := log[0].Timestamp, log[len(log)-1].Timestamp
		if wakeAt-ms < from-slack || wakeAt-ms > to+slack {
			return c.Cite("S5.timer.durable-wakeat").Failf(carrier.MethodGetState, d.ExecutionID+" after syscall.sleep "+args+" (_suspendedOn.wakeAt)", wakeAt,
				fmt.Sprintf("between %d and %d: the kernel's clock between the start (timestamp %d) and the timer's firing (timestamp %d), within a second, plus %d", from+ms-slack, to+ms+slack, from, to, ms))
		}
	}
	c.Progress(1, 2)
	d, err = startExec(ctx, c, "wakeat-until")
	if err != nil {
		return err
	}
	args = fmt.Sprintf(`{"wakeAt":%d}`, int64(at))
	if _, parked, err := d.Syscall(ctx, "sleepUntil", json.RawMessage(args)); err != nil || !parked {
		return c.Failf("syscall.sleepUntil", args, show(err, "answered without parking"), "parked")
	}
	wakeAt, err = recordedWakeAt(ctx, c, d.ExecutionID, "syscall.sleepUntil "+args)
	if err != nil {
		return err
	}
	if wakeAt != at {
		return c.Cite("S5.timer.durable-wakeat", "I-WIRE-47").Failf(carrier.MethodGetState, d.ExecutionID+" after syscall.sleepUntil "+args+" (_suspendedOn.wakeAt)", wakeAt, fmt.Sprint(int64(at)))
	}
	return nil
}
