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

// asIdempotent: re-archiving equal envelopes succeeds (I-STORE-70).
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

// asKeepsOnce: re-archived equal envelopes, whatever the store answers (success or a conflict),
// are never stored twice (I-STORE-18).
func asKeepsOnce(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("retry-once")
	rm := removed(x, 4)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	for _, again := range [][]spi.Envelope{rm, rm[2:]} {
		if err := c.Store.Append(ctx, x, again); err != nil && !errors.Is(err, spi.ErrConflict) {
			return c.Failf("Append", appendArgs(x, again, spi.AppendOptions{})+" (archived already)", err, "nil or a conflict")
		}
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

// respelledArchive archives three envelopes with values worth respelling, the first with payload
// first.
func respelledArchive(ctx context.Context, c *ArchiveStoreCase, x, first string) ([]spi.Envelope, error) {
	orig := batch(x, 0, 3, "orig")
	orig[0].Payload = json.RawMessage(first)
	orig[0].Metadata = json.RawMessage(`{"k":10,"t":"v"}`)
	orig[1].Payload = json.RawMessage(`"text"`)
	orig[2].Payload = json.RawMessage(`[1,{"b":true,"a":null}]`)
	return orig, archive(ctx, c, x, orig)
}

// asReappendRespelled: re-archiving the same values respelled succeeds, and a value a double
// cannot tell apart is still a different value (I-STORE-70, I-STORE-29).
func asReappendRespelled(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("respelled")
	orig, err := respelledArchive(ctx, c, x, `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`)
	if err != nil {
		return err
	}
	respelled := []spi.Envelope{respelledEnvelope(orig[0]), respelledEnvelope(orig[1]), respelledEnvelope(orig[2])}
	if err := c.Store.Append(ctx, x, respelled); err != nil {
		return c.Failf("Append", appendArgs(x, respelled, spi.AppendOptions{})+fmt.Sprintf(") the archived values respelled (%s", respelled[0].Payload), err, "nil (the same values)")
	}
	if err := expectArchive(ctx, c, x, orig, "re-archiving the same values respelled"); err != nil {
		return err
	}
	e := orig[0]
	e.Payload = json.RawMessage(`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567891}`)
	err = c.Store.Append(ctx, x, []spi.Envelope{e})
	if ee := expectErr(c, "Append", appendArgs(x, []spi.Envelope{e}, spi.AppendOptions{})+") with (a number one off beyond 2^64", err, spi.ErrConflict); ee != nil {
		return ee
	}
	return expectArchive(ctx, c, x, orig, "re-archiving a number one off beyond 2^64")
}

// asReappendDifferentValues: an envelope whose value differs in every reading (a string for a
// number, an added key, dropped metadata, a letter's case) is a conflict that changes nothing
// (I-STORE-18).
func asReappendDifferentValues(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("different")
	orig, err := respelledArchive(ctx, c, x, `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]}}`)
	if err != nil {
		return err
	}
	variants := []struct {
		name string
		mut  func(e *spi.Envelope)
	}{
		{"a string for a number", func(e *spi.Envelope) {
			e.Payload = json.RawMessage(`{"n":"1","s":"Abc","o":{"x":1.5,"y":[2,-3]}}`)
		}},
		{"an added null key in metadata", func(e *spi.Envelope) { e.Metadata = json.RawMessage(`{"k":10,"t":"v","u":null}`) }},
		{"metadata dropped", func(e *spi.Envelope) { e.Metadata = nil }},
		{"a string differing in case", func(e *spi.Envelope) {
			e.Payload = json.RawMessage(`{"n":1,"s":"ABC","o":{"x":1.5,"y":[2,-3]}}`)
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

// asRoundtripValues: the round-trip corpus archived in one call reads back value-exact
// (I-STORE-18), and, when the store replaces segments, put in by replaceSegments too (I-STORE-19):
// neither path re-encodes what it keeps.
func asRoundtripValues(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("values")
	want := valueEnvelopes(x, hardValues())
	if err := archive(ctx, c, x, want); err != nil {
		return err
	}
	if err := expectArchive(ctx, c, x, want, "archiving the round-trip corpus in one call"); err != nil {
		return err
	}
	if !asHas(c, spi.MethodReplaceSegments) {
		return nil
	}
	y := c.ExecID("values-replaced")
	if err := archive(ctx, c, y, batch(y, 0, len(want), "plain")); err != nil {
		return err
	}
	repl := valueEnvelopes(y, hardValues())
	r := spi.SeqRange{From: 0, Through: int64(len(repl) - 1)}
	if err := c.Store.(spi.SegmentReplacer).ReplaceSegments(ctx, y, r, repl); err != nil {
		return c.Cite("I-STORE-19").Failf("ReplaceSegments", fmt.Sprintf("%q, %d..%d, the round-trip corpus", y, r.From, r.Through), err, "nil")
	}
	got, err := c.Store.Read(ctx, y)
	if err != nil {
		return c.Cite("I-STORE-19").Failf("Read", fmt.Sprintf("%q", y), err, "nil")
	}
	return c.Cite("I-STORE-19").Diff("Read", fmt.Sprintf("%q) after (ReplaceSegments with the round-trip corpus", y), repl, nonNil(got), envCmp)
}

// asAppendOrder: the sequences of one archive append are strictly increasing; a repeated or
// out-of-order sequence is an invalid argument and nothing of the call is archived (I-STORE-53).
func asAppendOrder(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("archive-order")
	for _, seqs := range [][2]int64{{1, 1}, {2, 1}} {
		a, b := env(x, seqs[0], "first"), env(x, seqs[1], "second")
		b.Payload = json.RawMessage(`{"second":true}`)
		err := c.Store.Append(ctx, x, []spi.Envelope{a, b})
		if e := expectErr(c, "Append", fmt.Sprintf("%q, sequences %v", x, seqs), err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	return expectArchive(ctx, c, x, []spi.Envelope{}, "appends whose sequences repeat or go back")
}
