package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// Run is what driving a flow left behind: the execution's log and its folded state (canonical).
type Run struct {
	ExecutionID string
	Log         []spi.Envelope
	State       string
}

// Driver is a wire client's view of one execution it drives (the A3 contract from the client side).
type Driver struct {
	C           *Client
	ExecutionID string
	Token       string
}

// Syscall makes one syscall; parked reports that the run parked on it.
func (d *Driver) Syscall(ctx context.Context, name string, args json.RawMessage) (value json.RawMessage, parked bool, err error) {
	var res syscallResult
	err = d.C.Call(ctx, "syscall."+name, map[string]any{"executionId": d.ExecutionID, "driver": d.Token, "args": args}, &res)
	return res.Value, res.Parked, err
}

// Attached is the answer of execution.start, resume and attach.
type Attached = startResult

// checkExpect compares a call's answer with what the flow expects of it.
func checkExpect(i int, call clients.Call, err error) error {
	var ce *CallError
	switch {
	case call.Expect == nil && err == nil:
		return nil
	case call.Expect == nil:
		return fmt.Errorf("call %d (%s) = %v, want success", i, call.Syscall, err)
	case err == nil:
		return fmt.Errorf("call %d (%s) succeeded, want error %d %s", i, call.Syscall, call.Expect.Code, call.Expect.Channel)
	case !errors.As(err, &ce):
		return fmt.Errorf("call %d (%s) = %v, want kernel error %d", i, call.Syscall, err, call.Expect.Code)
	case ce.RPC.Code != call.Expect.Code:
		return fmt.Errorf("call %d (%s) = error %d (%s), want %d", i, call.Syscall, ce.RPC.Code, ce.RPC.Message, call.Expect.Code)
	}
	if call.Expect.Channel != "" {
		var d struct {
			Channel string `json:"channel"`
		}
		_ = json.Unmarshal(ce.RPC.Data, &d)
		if d.Channel != call.Expect.Channel {
			return fmt.Errorf("call %d (%s) = typed failure on %q, want %q", i, call.Syscall, d.Channel, call.Expect.Channel)
		}
	}
	return nil
}

// DriveWire drives flow f as execution execID over the wire, the way docs/wire.md tells a client
// to: start, make the calls in order, on a park resume with attach and re-drive from the top
// (the kernel serves what the log answers), complete; then replay it read-only (attach, re-drive,
// complete: nothing may be appended). It returns the log and folded state the kernel holds.
func DriveWire(ctx context.Context, c *Client, execID string, f clients.Flow) (Run, error) {
	var a Attached
	if err := c.Call(ctx, MethodStart, map[string]any{"flowId": f.ID, "executionId": execID, "input": f.Input}, &a); err != nil {
		return Run{}, err
	}
	d := &Driver{C: c, ExecutionID: execID, Token: a.Driver}
	resumed := false
	for i := 0; i < len(f.Calls); i++ {
		call := f.Calls[i]
		_, parked, err := d.Syscall(ctx, call.Syscall, call.Args)
		if err := checkExpect(i, call, err); err != nil {
			return Run{}, err
		}
		if !parked {
			continue
		}
		if resumed || f.Resume == nil {
			return Run{}, fmt.Errorf("call %d (%s) parked the execution a second time", i, call.Syscall)
		}
		resumed = true
		var r Attached
		if err := c.Call(ctx, MethodResume, map[string]any{"executionId": execID, "eventType": f.Resume.EventType, "payload": f.Resume.Payload, "attach": true}, &r); err != nil {
			return Run{}, err
		}
		d.Token = r.Driver
		i = -1 // re-drive from the top
	}
	if err := complete(ctx, d, f); err != nil {
		return Run{}, err
	}
	before, err := State(ctx, c, execID)
	if err != nil {
		return Run{}, err
	}
	// replay: attach to the ended execution and re-drive it; the kernel serves every answer.
	if err := c.Call(ctx, MethodAttach, map[string]any{"executionId": execID}, &a); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	d.Token = a.Driver
	for i, call := range f.Calls {
		_, parked, err := d.Syscall(ctx, call.Syscall, call.Args)
		if err := checkExpect(i, call, err); err != nil {
			return Run{}, fmt.Errorf("replay: %w", err)
		}
		if parked {
			return Run{}, fmt.Errorf("replay: call %d (%s) parked a finished execution", i, call.Syscall)
		}
	}
	if err := complete(ctx, d, f); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	after, err := State(ctx, c, execID)
	if err != nil {
		return Run{}, err
	}
	if len(after.Log) != len(before.Log) || after.State != before.State {
		return Run{}, fmt.Errorf("replay appended: the log went from %d to %d envelopes", len(before.Log), len(after.Log))
	}
	return after, nil
}

func complete(ctx context.Context, d *Driver, f clients.Flow) error {
	p := map[string]any{"executionId": d.ExecutionID, "driver": d.Token}
	if f.Error != nil {
		p["error"] = f.Error
	} else {
		p["output"] = f.Output
	}
	var a Attached
	if err := d.C.Call(ctx, MethodComplete, p, &a); err != nil {
		return err
	}
	want := fold.StatusCompleted
	if f.Error != nil {
		want = fold.StatusFailed
	}
	if a.Status != want {
		return fmt.Errorf("execution.complete: status %q, want %q", a.Status, want)
	}
	return nil
}

// State fetches the execution's folded state and log.
func State(ctx context.Context, c *Client, execID string) (Run, error) {
	var st stateResult
	if err := c.Call(ctx, MethodGetState, map[string]any{"executionId": execID, "includeLog": true}, &st); err != nil {
		return Run{}, err
	}
	return Run{ExecutionID: execID, Log: st.Log, State: st.Canonical}, nil
}

// RunInProcess runs flow f as execution execID on rt in process: a Go flow making the same calls
// through kernel.Context.Call, started, resumed once parked, then replayed read-only. It is the
// reference a wire run is compared with.
func RunInProcess(ctx context.Context, rt *kernel.Runtime, store spi.EventStore, execID string, f clients.Flow) (Run, error) {
	var mismatch error
	fn := func(kc *kernel.Context, _ json.RawMessage) (any, error) {
		for i, call := range f.Calls {
			_, err := kc.Call(call.Syscall, call.Args)
			var cerr error
			if err != nil {
				cerr = &CallError{Method: "syscall." + call.Syscall, RPC: *toRPC(err)}
			}
			if e := checkExpect(i, call, cerr); e != nil && mismatch == nil {
				mismatch = e
			}
		}
		if f.Error != nil {
			return nil, errors.New(f.Error.Message)
		}
		return f.Output, nil
	}
	if err := rt.Register(kernel.FlowDef{ID: f.ID, Fn: fn}); err != nil {
		return Run{}, err
	}
	var input any
	if f.Input != nil {
		input = f.Input
	}
	res, err := rt.Start(ctx, f.ID, execID, input)
	if err != nil {
		return Run{}, err
	}
	if res.Status == fold.StatusSuspended && f.Resume != nil {
		payload := f.Resume.Payload
		if payload == nil {
			payload = json.RawMessage("null")
		}
		if _, err := rt.Resume(ctx, execID, f.Resume.EventType, payload); err != nil {
			return Run{}, err
		}
	}
	if _, err := rt.Drive(ctx, execID); err != nil {
		return Run{}, fmt.Errorf("replay: %w", err)
	}
	if mismatch != nil {
		return Run{}, mismatch
	}
	st, err := rt.State(ctx, execID)
	if err != nil {
		return Run{}, err
	}
	canon, err := fold.CanonicalState(st)
	if err != nil {
		return Run{}, err
	}
	log, err := store.Read(ctx, execID)
	return Run{ExecutionID: execID, Log: log, State: string(canon)}, err
}
