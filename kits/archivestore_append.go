package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func asRoundtripPrecision(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("precision")
	want := []spi.Envelope{}
	for i, v := range precisionValues() {
		e := env(x, int64(i), "precise")
		e.Payload = json.RawMessage(v.payload)
		if v.metadata != "" {
			e.Metadata = json.RawMessage(v.metadata)
		}
		want = append(want, e)
	}
	if err := archive(ctx, c, x, want); err != nil {
		return err
	}
	return expectArchive(ctx, c, x, want, "archiving numbers a double cannot hold")
}

func asKeepsRemoved(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("compacted")
	first := removed(x, 10)
	// Two compactions: 0..5, then 6..10.
	if err := archive(ctx, c, x, first[:6]); err != nil {
		return err
	}
	if err := archive(ctx, c, x, first[6:]); err != nil {
		return err
	}
	return expectArchive(ctx, c, x, first, "compactions through 5 and 10")
}

func asIdempotent(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("retry")
	rm := removed(x, 4)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	if err := archive(ctx, c, x, rm[2:]); err != nil {
		return err
	}
	return expectArchive(ctx, c, x, rm, "archiving 0..4 twice and 2..4 again")
}

func asConflict(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("conflict")
	rm := removed(x, 3)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	changed := env(x, 3, "tampered")
	extra := env(x, 4, "extra")
	b := []spi.Envelope{changed, extra}
	err := c.Store.Append(ctx, x, b)
	if e := expectErr(c, "Append", appendArgs(x, b, spi.AppendOptions{})+" (3 differs)", err, spi.ErrConflict); e != nil {
		return e
	}
	return expectArchive(ctx, c, x, rm, "a refused conflicting archive")
}

func asReappendRespelled(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("respelled")
	orig := batch(x, 0, 3, "orig")
	orig[0].Payload = json.RawMessage(`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`)
	orig[0].Metadata = json.RawMessage(`{"k":10,"t":"v"}`)
	orig[1].Payload = json.RawMessage(`"text"`)
	orig[2].Payload = json.RawMessage(`[1,{"b":true,"a":null}]`)
	if err := archive(ctx, c, x, orig); err != nil {
		return err
	}
	respelled := []spi.Envelope{respelledEnvelope(orig[0]), respelledEnvelope(orig[1]), respelledEnvelope(orig[2])}
	if err := c.Store.Append(ctx, x, respelled); err != nil {
		return c.Failf("Append", appendArgs(x, respelled, spi.AppendOptions{})+fmt.Sprintf(") the archived values respelled (%s", respelled[0].Payload), err, "nil (the same values)")
	}
	if err := expectArchive(ctx, c, x, orig, "re-archiving the same values respelled"); err != nil {
		return err
	}
	variants := []struct {
		name string
		mut  func(e *spi.Envelope)
	}{
		{"a number one off beyond 2^64", func(e *spi.Envelope) {
			e.Payload = json.RawMessage(`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567891}`)
		}},
		{"a string for a number", func(e *spi.Envelope) {
			e.Payload = json.RawMessage(`{"n":"1","s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`)
		}},
		{"an added null key in metadata", func(e *spi.Envelope) { e.Metadata = json.RawMessage(`{"k":10,"t":"v","u":null}`) }},
		{"metadata dropped", func(e *spi.Envelope) { e.Metadata = nil }},
		{"a string differing in case", func(e *spi.Envelope) {
			e.Payload = json.RawMessage(`{"n":1,"s":"ABC","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`)
		}},
	}
	var errs []error
	for _, v := range variants {
		e := orig[0]
		v.mut(&e)
		err := c.Store.Append(ctx, x, []spi.Envelope{e})
		if ee := expectErr(c, "Append", appendArgs(x, []spi.Envelope{e}, spi.AppendOptions{})+") with ("+v.name, err, spi.ErrConflict); ee != nil {
			errs = append(errs, ee)
		}
	}
	if e := expectArchive(ctx, c, x, orig, "re-archiving different values"); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func asConflictAfterValid(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("late-conflict")
	rm := removed(x, 6)
	kept := append(append([]spi.Envelope{}, rm[:3]...), rm[6])
	if err := archive(ctx, c, x, kept); err != nil {
		return err
	}
	changed := env(x, 6, "tampered")
	calls := []struct {
		name   string
		events []spi.Envelope
	}{
		{"new 3..5, then a different 6", []spi.Envelope{rm[3], rm[4], rm[5], changed}},
		{"equal 1..2, new 3..5, then a different 6", []spi.Envelope{rm[1], rm[2], rm[3], rm[4], rm[5], changed}},
		{"new 3..5, a different 6, then new 7", []spi.Envelope{rm[3], rm[4], rm[5], changed, env(x, 7, "new")}},
	}
	for _, tc := range calls {
		err := c.Store.Append(ctx, x, tc.events)
		if e := expectErr(c, "Append", appendArgs(x, tc.events, spi.AppendOptions{})+") ("+tc.name, err, spi.ErrConflict); e != nil {
			return e
		}
		if e := expectArchive(ctx, c, x, kept, "a refused call: "+tc.name); e != nil {
			return e
		}
	}
	return nil
}
