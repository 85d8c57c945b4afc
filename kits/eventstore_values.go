package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

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
	want := valueEnvelopes(x, values)
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

// esCopyPrefixValues: copyPrefix carries every hard value value-exact (I-STORE-11, I-STORE-3): a
// copy that re-encodes members through another JSON library (empty arrays as objects, numbers
// printed with 14 digits, integers read as int64) changes the state a fold of the copy gives.
func esCopyPrefixValues(ctx context.Context, c *EventStoreCase) error {
	src, dst := c.ExecID("copy-values-src"), c.ExecID("copy-values-dst")
	all := valueEnvelopes(src, hardValues())
	if err := appendOK(ctx, c, src, all, spi.AppendOptions{}); err != nil {
		return err
	}
	through := int64(len(all) - 1)
	if err := c.Store.(spi.PrefixCopier).CopyPrefix(ctx, src, dst, through); err != nil {
		return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, %d", src, dst, through), err, "nil")
	}
	want := make([]spi.Envelope, len(all))
	for i, e := range all {
		e.ExecutionID = dst
		want[i] = e
	}
	return expectLog(ctx, c, dst, want, fmt.Sprintf("CopyPrefix of %d envelopes of hard values", len(all)))
}
