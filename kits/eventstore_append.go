package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func esAppendReadOrder(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("order")
	var want []spi.Envelope
	next := int64(0)
	for _, n := range []int{1, 3, 1, 7, 2} {
		b := batch(x, next, n, "order")
		if err := appendOK(ctx, c, x, b, spi.AppendOptions{}); err != nil {
			return err
		}
		want = append(want, b...)
		next += int64(n)
	}
	if err := c.Store.Append(ctx, x, nil, spi.AppendOptions{}); err != nil {
		return c.Failf("Append", fmt.Sprintf("%q, []", x), err, "nil (an empty batch is a no-op)")
	}
	return expectLog(ctx, c, x, want, "five batches of 1, 3, 1, 7, 2")
}

func esReadUnknown(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("never-written")
	got, err := c.Store.Read(ctx, x)
	if err != nil {
		return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
	}
	if len(got) != 0 {
		return c.Failf("Read", fmt.Sprintf("%q", x), fmt.Sprintf("%d envelopes", len(got)), "0 envelopes")
	}
	return nil
}

func esAppendConflict(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("conflict")
	base := batch(x, 0, 3, "base")
	if err := appendOK(ctx, c, x, base, spi.AppendOptions{}); err != nil {
		return err
	}
	var errs []error
	for _, b := range [][]spi.Envelope{
		batch(x, 0, 1, "stale-0"), batch(x, 2, 2, "stale-2"), batch(x, 4, 1, "future-4"), batch(x, 10, 3, "future-10"),
	} {
		err := c.Store.Append(ctx, x, b, spi.AppendOptions{})
		if e := expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{}), err, spi.ErrConflict); e != nil {
			errs = append(errs, e)
		}
	}
	if e := expectLog(ctx, c, x, base, "conflicting appends"); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func esAppendInvalid(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("invalid")
	other := c.ExecID("invalid-other")
	gap := batch(x, 0, 3, "gap")
	gap[2].Sequence = 5
	foreign := batch(x, 0, 2, "foreign")
	foreign[1].ExecutionID = other
	badJSON := batch(x, 0, 2, "json")
	badJSON[1].Payload = json.RawMessage(`{"unterminated":`)
	badMeta := batch(x, 0, 1, "meta")
	badMeta[0].Metadata = json.RawMessage(`["not","an","object"]`)
	negative := batch(x, -1, 2, "negative")
	cases := []struct {
		name   string
		exec   string
		events []spi.Envelope
	}{
		{"gap", x, gap}, {"other execution", x, foreign}, {"bad payload", x, badJSON}, {"metadata not an object", x, badMeta},
		{"negative sequence", x, negative}, {"empty execution id", "", batch("", 0, 1, "empty")},
	}
	var errs []error
	for _, tc := range cases {
		err := c.Store.Append(ctx, tc.exec, tc.events, spi.AppendOptions{})
		if tc.name == "negative sequence" && errors.Is(err, spi.ErrConflict) {
			continue // refused either way: that it is invalid, never a conflict, is I-STORE-50's (eventstore/refusal-order)
		}
		if e := expectErr(c, "Append", tc.name+": "+appendArgs(tc.exec, tc.events, spi.AppendOptions{}), err, spi.ErrInvalidArgument); e != nil {
			errs = append(errs, e)
		}
	}
	if e := expectLog(ctx, c, x, nil, "invalid appends"); e != nil {
		errs = append(errs, e)
	}
	if e := expectLog(ctx, c, other, nil, "invalid appends"); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func esAppendAtomic(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("atomic")
	base := batch(x, 0, 2, "base")
	if err := appendOK(ctx, c, x, base, spi.AppendOptions{}); err != nil {
		return err
	}
	// Overlaps seq 1 (taken) then continues to 2..5: a store that writes envelope by envelope and
	// skips or stops at the taken one leaves a partial batch.
	overlap := batch(x, 1, 5, "overlap")
	err := c.Store.Append(ctx, x, overlap, spi.AppendOptions{})
	if e := expectErr(c, "Append", appendArgs(x, overlap, spi.AppendOptions{}), err, spi.ErrConflict); e != nil {
		return e
	}
	if e := expectLog(ctx, c, x, base, "a refused overlapping batch"); e != nil {
		return e
	}
	// A large batch lands whole.
	big := batch(x, 2, 250, "big")
	if err := appendOK(ctx, c, x, big, spi.AppendOptions{}); err != nil {
		return err
	}
	return expectLog(ctx, c, x, append(base, big...), "a batch of 250")
}

func esResendConflict(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("resend")
	base := batch(x, 0, 3, "base")
	base[1].Metadata = json.RawMessage(`{"k":1,"l":"v"}`)
	if err := appendOK(ctx, c, x, base, spi.AppendOptions{}); err != nil {
		return err
	}
	respelled := []spi.Envelope{respelledEnvelope(base[1]), respelledEnvelope(base[2])}
	withNew := []spi.Envelope{base[2], env(x, 3, "new")}
	var errs []error
	for _, tc := range []struct {
		name   string
		events []spi.Envelope
	}{
		{"the stored envelopes 1..2, byte-identical", base[1:]},
		{"the stored envelopes 1..2, respelled", respelled},
		{"the stored envelope 2 and a new 3", withNew},
	} {
		err := c.Store.Append(ctx, x, tc.events, spi.AppendOptions{})
		if e := expectErr(c, "Append", appendArgs(x, tc.events, spi.AppendOptions{})+") re-sending ("+tc.name, err, spi.ErrConflict); e != nil {
			errs = append(errs, e)
		}
	}
	if e := expectLog(ctx, c, x, base, "re-sent envelopes"); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func esInvalidAfterValid(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("late-invalid")
	base := batch(x, 0, 3, "base")
	if err := appendOK(ctx, c, x, base, spi.AppendOptions{}); err != nil {
		return err
	}
	mk := func(mut func(b []spi.Envelope) []spi.Envelope) []spi.Envelope {
		return mut(batch(x, 3, 4, "late"))
	}
	cases := []struct {
		name   string
		events []spi.Envelope
	}{
		{"payload of the 4th not JSON", mk(func(b []spi.Envelope) []spi.Envelope { b[3].Payload = json.RawMessage(`{"open":`); return b })},
		{"metadata of the 3rd an array", mk(func(b []spi.Envelope) []spi.Envelope { b[2].Metadata = json.RawMessage(`[1]`); return b })},
		{"the 4th of another execution", mk(func(b []spi.Envelope) []spi.Envelope { b[3].ExecutionID = x + "-other"; return b })},
		{"a gap before the 4th", mk(func(b []spi.Envelope) []spi.Envelope { b[3].Sequence = 9; return b })},
		{"the 4th repeats the 3rd's sequence", mk(func(b []spi.Envelope) []spi.Envelope { b[3].Sequence = b[2].Sequence; return b })},
	}
	var errs []error
	for _, tc := range cases {
		err := c.Store.Append(ctx, x, tc.events, spi.AppendOptions{})
		// The log first: a store that wrote the valid envelopes before refusing shows here,
		// before its next refusal turns into a conflict.
		if e := expectLog(ctx, c, x, base, "a batch refused for a late bad envelope: "+tc.name); e != nil {
			return e
		}
		if e := expectErr(c, "Append", appendArgs(x, tc.events, spi.AppendOptions{})+") with ("+tc.name, err, spi.ErrInvalidArgument); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// The head is still free: nothing of the refused batches took sequence 3.
	return appendOK(ctx, c, x, batch(x, 3, 1, "after"), spi.AppendOptions{})
}
