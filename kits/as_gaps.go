package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// asGapChecks apply the cross-seam rules to the ArchiveStore: ids on every method, equality by
// value, a conflict after valid envelopes, replacement of whole envelopes, and atomicity seen by
// concurrent readers.
func asGapChecks() []Check[spi.ArchiveStore] {
	type C = Check[spi.ArchiveStore]
	return []C{
		{ID: "archivestore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27"}, Level: spec.Must,
			Doc: "append, read and every declared optional method (replaceSegments, deleteExecution) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . |", Run: asIDsEveryMethod},
		{ID: "archivestore/reappend-respelled", Clauses: []string{"I-STORE-18", "I-STORE-29"}, Level: spec.Must,
			Doc: "re-archiving the same values in another JSON spelling (key order, 1 vs 10e-1, escapes) is a no-op; a different value (a number a double cannot tell apart, a string for a number, an added key) is a conflict that changes nothing", Run: asReappendRespelled},
		{ID: "archivestore/conflict-after-valid", Clauses: []string{"I-STORE-18", "I-STORE-30"}, Level: spec.Must,
			Doc: "a call whose conflicting envelope comes after new and equal ones is refused whole: read back, the archive is unchanged", Run: asConflictAfterValid},
		{ID: "archivestore/replace-invalid-after-valid", Clauses: []string{"S7.as.replace-segments", "I-STORE-19", "I-STORE-30"}, Level: spec.Must,
			Requires: []string{spi.MethodReplaceSegments},
			Doc:      "a replaceSegments whose envelope outside the range comes after valid ones is refused whole: read back, the archive is unchanged", Run: asReplaceInvalidAfterValid},
		{ID: "archivestore/replace-whole-envelopes", Clauses: []string{"S7.as.replace-segments", "I-STORE-19", "I-STORE-32"}, Level: spec.Must,
			Requires: []string{spi.MethodReplaceSegments},
			Doc:      "an envelope put in by replaceSegments replaces the old one whole: every field, metadata dropped when the new one has none", Run: asReplaceWhole},
		{ID: "archivestore/readers-whole-append", Clauses: []string{"I-STORE-18", "I-STORE-31"}, Level: spec.Must,
			Doc: "readers racing archive appends only ever see whole calls (sees a partial call visible for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: asReadersWholeAppend},
		{ID: "archivestore/readers-whole-replace", Clauses: []string{"S7.as.replace-segments", "I-STORE-19", "I-STORE-31"}, Level: spec.Must,
			Requires: []string{spi.MethodReplaceSegments},
			Doc:      "readers racing replaceSegments only ever see the range before or after a whole replacement (rounds and limit as readers-whole-append)", Run: asReadersWholeReplace},
	}
}

func asHas(c *ArchiveStoreCase, method string) bool {
	return spi.Has(manifest.SeamArchiveStore, c.Store, method)
}

func asIDsEveryMethod(ctx context.Context, c *ArchiveStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		a, b := p[0], p[1]
		ra, rb := removed(a, 2), removed(b, 4)
		if err := archive(ctx, c, b, rb); err != nil {
			return err
		}
		if err := archive(ctx, c, a, ra); err != nil {
			return err
		}
		both := fmt.Sprintf("archiving %q and %q", a, b)
		if err := expectArchive(ctx, c, a, ra, both); err != nil {
			return err
		}
		if err := expectArchive(ctx, c, b, rb, both); err != nil {
			return err
		}
		if asHas(c, spi.MethodReplaceSegments) {
			r0 := env(a, 0, "replaced")
			if err := c.Store.(spi.SegmentReplacer).ReplaceSegments(ctx, a, spi.SeqRange{From: 0, Through: 4}, []spi.Envelope{r0}); err != nil {
				return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [0, 4], [seq 0]", a), err, "nil")
			}
			ra = []spi.Envelope{r0}
			if err := expectArchive(ctx, c, b, rb, fmt.Sprintf("ReplaceSegments on %q", a)); err != nil {
				return err
			}
			if err := expectArchive(ctx, c, a, ra, "ReplaceSegments([0,4], seq 0)"); err != nil {
				return err
			}
		}
		if asHas(c, spi.MethodDeleteExecution) {
			if err := c.Store.(spi.ArchiveDeleter).DeleteExecution(ctx, b); err != nil {
				return c.Failf("DeleteExecution", fmt.Sprintf("%q", b), err, "nil")
			}
			if err := expectArchive(ctx, c, a, ra, fmt.Sprintf("DeleteExecution of %q", b)); err != nil {
				return err
			}
		}
	}
	return nil
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

func asReplaceWhole(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace-whole")
	old := batch(x, 0, 4, "old")
	for i := range old {
		old[i].Metadata = json.RawMessage(fmt.Sprintf(`{"seal":{"v":%d},"keep":"old"}`, i))
	}
	if err := archive(ctx, c, x, old); err != nil {
		return err
	}
	fresh := []spi.Envelope{env(x, 1, "new"), env(x, 2, "new")}
	fresh[0].EventType, fresh[0].ID, fresh[0].WorkflowID, fresh[0].Timestamp = "KIT_RESEALED", "new-1", "wf-new", 42
	fresh[1].Metadata = json.RawMessage(`{"seal":{"v":9}}`)
	if err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 1, Through: 2}, fresh); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [1, 2], [seq 1..2]", x), err, "nil")
	}
	return expectArchive(ctx, c, x, []spi.Envelope{old[0], fresh[0], fresh[1], old[3]}, "ReplaceSegments([1,2]) with envelopes of other fields, the first without metadata")
}

func asReadersWholeAppend(ctx context.Context, c *ArchiveStoreCase) error {
	x := c.ExecID("readers-append")
	const size, rounds = 6, 12
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		return archive(ctx, c, x, batch(x, int64(i*size), size, fmt.Sprintf("b%d", i)))
	}, func(_, i int, after bool) error {
		got, err := c.Store.Read(ctx, x)
		if err != nil {
			return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
		}
		why := wholeBatches(got, 0, size)
		if why == "" && after && len(got) != (i+1)*size {
			why = fmt.Sprintf("%d envelopes after call %d returned", len(got), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing archive appends of %d envelopes (", x, size), why, "whole calls only")
		}
		return nil
	})
}

func asReadersWholeReplace(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("readers-replace")
	const n, rounds = 24, 8
	if err := archive(ctx, c, x, batch(x, 0, n, "v0")); err != nil {
		return err
	}
	r := spi.SeqRange{From: 0, Through: n - 1}
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		if err := rs.ReplaceSegments(ctx, x, r, batch(x, 0, n, fmt.Sprintf("v%d", i+1))); err != nil {
			return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [0, %d], [seq 0..%d]", x, n-1, n-1), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		got, err := c.Store.Read(ctx, x)
		if err != nil {
			return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
		}
		why := wholeBatches(got, 0, n)
		switch {
		case why == "" && len(got) != n:
			why = fmt.Sprintf("%d envelopes", len(got))
		case why == "" && after && tagOf(got[0]) != fmt.Sprintf("v%d", i+1):
			why = fmt.Sprintf("version %s after the replacement by v%d returned", tagOf(got[0]), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing replaceSegments of the whole range [0, %d] (", x, n-1), why, fmt.Sprintf("%d envelopes of one version", n))
		}
		return nil
	})
}

func asReplaceInvalidAfterValid(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace-late-invalid")
	rm := removed(x, 9)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	events := []spi.Envelope{env(x, 2, "new"), env(x, 3, "new"), env(x, 8, "outside")}
	err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 2, Through: 5}, events)
	if e := expectArchive(ctx, c, x, rm, "a ReplaceSegments([2,5]) refused for its 3rd envelope at 8"); e != nil {
		return e
	}
	return expectErr(c, "ReplaceSegments", fmt.Sprintf("%q, [2, 5], [seq 2, 3, 8]", x), err, spi.ErrInvalidArgument)
}
