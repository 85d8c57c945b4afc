package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// appendOK appends and turns any error into a violation.
func appendOK(ctx context.Context, c *EventStoreCase, exec string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := c.Store.Append(ctx, exec, events, opts); err != nil {
		return c.Failf("Append", appendArgs(exec, events, opts), err, "nil")
	}
	return nil
}

func appendArgs(exec string, events []spi.Envelope, opts spi.AppendOptions) string {
	s := fmt.Sprintf("%q, ", exec)
	switch len(events) {
	case 0:
		s += "[]"
	case 1:
		s += fmt.Sprintf("[seq %d]", events[0].Sequence)
	default:
		s += fmt.Sprintf("[seq %d..%d]", events[0].Sequence, events[len(events)-1].Sequence)
	}
	if opts.Fence != 0 {
		s += fmt.Sprintf(", fence %d", opts.Fence)
	}
	return s
}

// readAll reads and turns an error into a violation.
func readAll(ctx context.Context, c *EventStoreCase, exec string) ([]spi.Envelope, error) {
	got, err := c.Store.Read(ctx, exec)
	if err != nil {
		return nil, c.Failf("Read", fmt.Sprintf("%q", exec), err, "nil")
	}
	return got, nil
}

// expectLog reads exec and compares it with want by value.
func expectLog(ctx context.Context, c *EventStoreCase, exec string, want []spi.Envelope, after string) error {
	got, err := readAll(ctx, c, exec)
	if err != nil {
		return err
	}
	if want == nil {
		want = []spi.Envelope{}
	}
	if got == nil {
		got = []spi.Envelope{}
	}
	return c.Diff("Read", fmt.Sprintf("%q) after (%s", exec, after), want, got, envCmp)
}

// expectErr checks that err matches target.
func expectErr[T any](c *Case[T], op, args string, err, target error) error {
	if !errors.Is(err, target) {
		return c.Failf(op, args, err, fmt.Sprintf("error matching %v", target))
	}
	return nil
}

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

func esRoundtrip(ctx context.Context, c *EventStoreCase) error {
	if err := roundtripValues(ctx, c, "values", hardValues()); err != nil {
		return err
	}
	// A large envelope: 1 MiB payload and 64 KiB metadata (well under the bridge's request limit).
	x := c.ExecID("large")
	p, m := largeValue(1<<20, 64<<10)
	e := env(x, 0, "large")
	e.Payload, e.Metadata = json.RawMessage(p), json.RawMessage(m)
	if err := c.Store.Append(ctx, x, []spi.Envelope{e}, spi.AppendOptions{}); err != nil {
		return c.Failf("Append", fmt.Sprintf("%q, [seq 0] with a %d-byte payload and %d-byte metadata", x, len(p), len(m)), err, "nil")
	}
	got, err := readAll(ctx, c, x)
	if err != nil {
		return err
	}
	switch {
	case len(got) != 1:
		return c.Failf("Read", fmt.Sprintf("%q) after (one large append", x), fmt.Sprintf("%d envelopes", len(got)), "1 envelope")
	case !spi.SameJSON(got[0].Payload, e.Payload):
		return c.Failf("Read", fmt.Sprintf("%q) payload (", x), fmt.Sprintf("%d bytes, not the same value", len(got[0].Payload)), fmt.Sprintf("the %d-byte payload value-exact", len(p)))
	case len(got[0].Metadata) == 0 || !spi.SameJSON(got[0].Metadata, e.Metadata):
		return c.Failf("Read", fmt.Sprintf("%q) metadata (", x), fmt.Sprintf("%d bytes, not the same value", len(got[0].Metadata)), fmt.Sprintf("the %d-byte metadata value-exact", len(m)))
	}
	return nil
}

func esRoundtripPrecision(ctx context.Context, c *EventStoreCase) error {
	return roundtripValues(ctx, c, "precision", precisionValues())
}

// roundtripValues appends values one at a time to one execution and as one batch to another and
// reads both back value-exact.
func roundtripValues(ctx context.Context, c *EventStoreCase, name string, values []struct{ name, payload, metadata string }) error {
	x := c.ExecID(name)
	var want []spi.Envelope
	for i, hv := range values {
		e := env(x, int64(i), hv.name)
		e.ID = fmt.Sprintf("id-%s-✓-%d", hv.name, i)
		e.WorkflowID = "wf/ünï"
		e.EventType = "KIT_" + hv.name
		e.Timestamp = 1_767_225_600_123 + int64(i)
		e.Payload = json.RawMessage(hv.payload)
		if hv.metadata != "" {
			e.Metadata = json.RawMessage(hv.metadata)
		}
		want = append(want, e)
	}
	// One at a time and then as one batch into a second execution.
	for _, e := range want {
		if err := appendOK(ctx, c, x, []spi.Envelope{e}, spi.AppendOptions{}); err != nil {
			return err
		}
	}
	if err := expectLog(ctx, c, x, want, "single appends of hard values"); err != nil {
		return err
	}
	y := c.ExecID(name + "-batch")
	var wantY []spi.Envelope
	for _, e := range want {
		e.ExecutionID = y
		wantY = append(wantY, e)
	}
	if err := appendOK(ctx, c, y, wantY, spi.AppendOptions{}); err != nil {
		return err
	}
	got, err := readAll(ctx, c, y)
	if err != nil {
		return err
	}
	if len(got) != len(wantY) {
		return c.Failf("Read", fmt.Sprintf("%q", y), fmt.Sprintf("%d envelopes", len(got)), len(wantY))
	}
	for i := range got {
		if (len(got[i].Metadata) == 0) != (len(wantY[i].Metadata) == 0) {
			return c.Failf("Read", fmt.Sprintf("%q) envelope %d metadata (", y, i), string(got[i].Metadata), fmt.Sprintf("%q", string(wantY[i].Metadata)))
		}
	}
	return c.Diff("Read", fmt.Sprintf("%q) after (one batch of hard values", y), wantY, got, envCmp)
}

func esIsolation(ctx context.Context, c *EventStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	var wa, wb []spi.Envelope
	for i := int64(0); i < 6; i++ {
		ea, eb := env(a, i, "a"), env(b, i, "b")
		if err := appendOK(ctx, c, a, []spi.Envelope{ea}, spi.AppendOptions{}); err != nil {
			return err
		}
		if err := appendOK(ctx, c, b, []spi.Envelope{eb}, spi.AppendOptions{}); err != nil {
			return err
		}
		wa, wb = append(wa, ea), append(wb, eb)
	}
	// A prefix id of a must not see a's events.
	if err := expectLog(ctx, c, a[:len(a)-1], nil, "writes to "+a); err != nil {
		return err
	}
	if err := expectLog(ctx, c, a, wa, "interleaved appends"); err != nil {
		return err
	}
	return expectLog(ctx, c, b, wb, "interleaved appends")
}

func esExecutionIDs(ctx context.Context, c *EventStoreCase) error {
	base := c.ExecID("ids")
	long := base + "-" + strings.Repeat("x", 1000)
	ids := []string{
		"__loom_quarantine__:" + base,
		"__loom_quarantine__:" + base + ":2",
		base + `-quote'"-percent%_-backslash\\-slash/`,
		base + "-ünï-日本-🧵",
		base + "-space and\ttab",
		long + "a",
		long + "b",
		// Ids that differ only by case, trailing space or Unicode normal form are different ids:
		// ids are compared as bytes (I-STORE-4), never folded, trimmed or normalised.
		base + "-Case",
		base + "-case",
		base + "-pad",
		base + "-pad ",
		base + "-caf\u00e9",
		base + "-cafe\u0301",
	}
	for i, x := range ids {
		if err := appendOK(ctx, c, x, batch(x, 0, i+1, fmt.Sprintf("id%d", i)), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	for i, x := range ids {
		if err := expectLog(ctx, c, x, batch(x, 0, i+1, fmt.Sprintf("id%d", i)), fmt.Sprintf("appends to %d awkward ids", len(ids))); err != nil {
			return err
		}
	}
	return nil
}
