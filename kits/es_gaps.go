package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// esGapChecks are the EventStore checks that apply the cross-seam rules to every method: ids on
// every method, byte-order listing, no value-equality on the log, refusals that come after valid
// items, atomicity seen by concurrent readers, and the storeNow unit.
func esGapChecks() []Check[spi.EventStore] {
	type C = Check[spi.EventStore]
	return []C{
		{ID: "eventstore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27"}, Level: spec.Must,
			Doc: "append, read and every optional method the store declares (readRange, acquireFence, acquireFenceIf, appendIfUnchanged, deleteThrough, deleteExecution, copyPrefix) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . |", Run: esIDsEveryMethod},
		{ID: "eventstore/list-executions-byte-order", Clauses: []string{"I-STORE-13", "I-STORE-28", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage},
			Doc:      "listExecutionsPage lists ids that differ only by case, trailing space or normal form once each, in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order)", Run: esListByteOrder},
		{ID: "eventstore/append-resend-conflict", Clauses: []string{"I-STORE-1", "I-STORE-29", "I-STORE-30"}, Level: spec.Must,
			Doc: "re-sending stored envelopes (byte-identical or respelled) at their sequences is a conflict, never an idempotent no-op, and a resend followed by new envelopes writes nothing", Run: esResendConflict},
		{ID: "eventstore/invalid-after-valid", Clauses: []string{"I-STORE-2", "I-STORE-30", "S4.envelope.shape"}, Level: spec.Must,
			Doc: "a batch at the head whose bad envelope comes after valid ones is refused whole: the log reads back unchanged and the head is still free", Run: esInvalidAfterValid},
		{ID: "eventstore/readers-whole-append", Clauses: []string{"I-STORE-2", "I-STORE-31"}, Level: spec.Must,
			Doc: "readers racing batch appends only ever see whole batches in 12 rounds, two readers reading before, during and after each append (sees a partial batch visible for at least one read; a window shorter than one read is beyond it)", Run: esReadersWholeAppend},
		{ID: "eventstore/readers-whole-delete-through", Clauses: []string{"S7.es.delete-through-atomic", "I-STORE-31"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteThrough},
			Doc:      "readers racing deleteThrough only ever see the log before or after a whole delete, never a partly deleted prefix (rounds and limit as readers-whole-append)", Run: esReadersWholeDeleteThrough},
		{ID: "eventstore/readers-whole-copy-prefix", Clauses: []string{"S7.es.copy-prefix", "I-STORE-11", "I-STORE-31"}, Level: spec.Must,
			Requires: []string{spi.MethodCopyPrefix},
			Doc:      "readers of a copyPrefix target see nothing or the whole copied prefix, never part of it (rounds and limit as readers-whole-append)", Run: esReadersWholeCopyPrefix},
		{ID: "eventstore/readers-whole-delete-execution", Clauses: []string{"S7.es.delete-execution", "I-STORE-12", "I-STORE-31"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution},
			Doc:      "readers racing deleteExecution see the whole log or nothing, never part of it (rounds and limit as readers-whole-append)", Run: esReadersWholeDeleteExecution},
		{ID: "eventstore/store-now-unit", Clauses: []string{"S7.es.store-now", "I-STORE-26"}, Level: spec.Must,
			Requires: []string{spi.MethodStoreNow},
			Doc:      "storeNow answers epoch milliseconds: 13 digits (10^12..10^13), not seconds or microseconds", Run: esStoreNowUnit},
	}
}

func esHas(c *EventStoreCase, method string) bool {
	return spi.Has(manifest.SeamEventStore, c.Store, method)
}

func esIDsEveryMethod(ctx context.Context, c *EventStoreCase) error {
	for _, p := range idPairs(c.ExecID("ids")) {
		if err := esIDPair(ctx, c, p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// esIDPair walks every declared optional method over a and b, each step checking that b (or a)
// did not move.
func esIDPair(ctx context.Context, c *EventStoreCase, a, b string) error {
	la, lb := batch(a, 0, 3, "a"), batch(b, 0, 5, "b")
	if err := appendOK(ctx, c, b, lb, spi.AppendOptions{}); err != nil {
		return err
	}
	if esHas(c, spi.MethodCopyPrefix) {
		// a is empty as bytes, whatever b is: copyPrefix into it must succeed and leave b alone.
		if err := c.Store.(spi.PrefixCopier).CopyPrefix(ctx, b, a, 1); err != nil {
			return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, 1) next to (a non-empty %q", b, a, b), err, "nil (the target is empty)")
		}
		la = []spi.Envelope{lb[0], lb[1], env(a, 2, "a")}
		la[0].ExecutionID, la[1].ExecutionID = a, a
		if err := expectLog(ctx, c, a, la[:2], fmt.Sprintf("CopyPrefix from %q", b)); err != nil {
			return err
		}
		if err := expectLog(ctx, c, b, lb, fmt.Sprintf("CopyPrefix into %q", a)); err != nil {
			return err
		}
		la = la[:2]
		if err := appendOK(ctx, c, a, []spi.Envelope{env(a, 2, "a")}, spi.AppendOptions{}); err != nil {
			return err
		}
		la = append(la, env(a, 2, "a"))
	} else if err := appendOK(ctx, c, a, la, spi.AppendOptions{}); err != nil {
		return err
	}
	ctxt := func(what string) string { return fmt.Sprintf("%s on %q", what, a) }
	var tokenA, tokenB int64 // the current fence token of each id (0: never fenced)
	if esHas(c, spi.MethodReadRange) {
		rr := c.Store.(spi.RangeReader)
		for _, x := range []struct {
			id   string
			want []spi.Envelope
		}{{a, la}, {b, lb}} {
			got, err := rr.ReadRange(ctx, x.id, 0, -1)
			if err != nil {
				return c.Failf("ReadRange", fmt.Sprintf("%q, 0, -1", x.id), err, "nil")
			}
			if d := c.Diff("ReadRange", fmt.Sprintf("%q, 0, -1) next to (%q", x.id, other(x.id, a, b)), x.want, nonNil(got), envCmp); d != nil {
				return d
			}
		}
	}
	if esHas(c, spi.MethodAcquireFence) {
		f := c.Store.(spi.Fencer)
		fb, err := f.AcquireFence(ctx, b)
		if err != nil {
			return c.Failf("AcquireFence", fmt.Sprintf("%q", b), err, "nil")
		}
		fa, err := f.AcquireFence(ctx, a)
		if err != nil {
			return c.Failf("AcquireFence", fmt.Sprintf("%q", a), err, "nil")
		}
		tokenA, tokenB = fa.Token, fb.Token
		next := env(b, int64(len(lb)), "b-fenced")
		if err := c.Store.Append(ctx, b, []spi.Envelope{next}, spi.AppendOptions{Fence: fb.Token}); err != nil {
			return c.Failf("Append", appendArgs(b, []spi.Envelope{next}, spi.AppendOptions{Fence: fb.Token})+") after ("+ctxt("AcquireFence"), err, "nil (a fence of another id does not fence this one)")
		}
		lb = append(lb, next)
	}
	if esHas(c, spi.MethodAcquireFenceIf) {
		// Each id's current token is its own: a conditional fence on a, then on b, each
		// expecting the token that id last got, both succeed.
		fi := c.Store.(spi.ConditionalFencer)
		for _, x := range []struct {
			id       string
			expected int64
		}{{a, tokenA}, {b, tokenB}} {
			if _, err := fi.AcquireFenceIf(ctx, x.id, x.expected); err != nil {
				return c.Failf("AcquireFenceIf", fmt.Sprintf("%q, %d) next to (%q", x.id, x.expected, other(x.id, a, b)), err, "a new token (that id's current token is the expected one)")
			}
		}
	}
	if esHas(c, spi.MethodAppendIfUnchanged) {
		ca := c.Store.(spi.ConditionalAppender)
		anchor, err := ca.Observe(ctx, a)
		if err != nil {
			return c.Failf("Observe", fmt.Sprintf("%q", a), err, "nil")
		}
		next := env(b, int64(len(lb)), "b-after-observe")
		if err := appendOK(ctx, c, b, []spi.Envelope{next}, spi.AppendOptions{}); err != nil {
			return err
		}
		lb = append(lb, next)
		na := env(a, int64(len(la)), "a-if-unchanged")
		if err := ca.AppendIfUnchanged(ctx, a, anchor, []spi.Envelope{na}, spi.AppendOptions{}); err != nil {
			return c.Failf("AppendIfUnchanged", fmt.Sprintf("%q, its fresh anchor, [seq %d]) after (an append to %q", a, na.Sequence, b), err, "nil (writes to another id never make an anchor stale)")
		}
		la = append(la, na)
	}
	if err := expectLog(ctx, c, b, lb, ctxt("writes")); err != nil {
		return err
	}
	if esHas(c, spi.MethodDeleteThrough) {
		if err := c.Store.(spi.ThroughDeleter).DeleteThrough(ctx, a, 1); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, 1", a), err, "nil")
		}
		if err := expectLog(ctx, c, b, lb, ctxt("DeleteThrough 1")); err != nil {
			return err
		}
		if err := expectLog(ctx, c, a, la[2:], "DeleteThrough 1"); err != nil {
			return err
		}
	}
	if esHas(c, spi.MethodDeleteExecution) {
		if err := c.Store.(spi.ExecutionDeleter).DeleteExecution(ctx, a); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", a), err, "nil")
		}
		if err := expectLog(ctx, c, b, lb, ctxt("DeleteExecution")); err != nil {
			return err
		}
		if err := expectLog(ctx, c, a, nil, "DeleteExecution"); err != nil {
			return err
		}
		la = nil
	}
	return nil
}

func other(id, a, b string) string {
	if id == a {
		return b
	}
	return a
}

func esListByteOrder(ctx context.Context, c *EventStoreCase) error {
	lister := c.Store.(spi.ExecutionLister)
	base := c.ExecID("order")
	ids, want := byteOrderIDs(base + "/")
	for _, x := range ids {
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "listed"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	got := []string{}
	cursor := base + "/"
	for pages := 0; ; pages++ {
		if pages > 2*len(ids)+2 {
			return c.Failf("ListExecutionsPage", fmt.Sprintf("from %q, limit 3", base+"/"), fmt.Sprintf("more than %d pages", pages), fmt.Sprintf("%d ids in at most %d pages", len(ids), len(ids)/3+1))
		}
		page, err := lister.ListExecutionsPage(ctx, cursor, 3)
		if err != nil {
			return c.Failf("ListExecutionsPage", fmt.Sprintf("%q, 3", cursor), err, "nil")
		}
		stop := page.Next == ""
		for _, x := range page.ExecutionIDs {
			if !strings.HasPrefix(x, base+"/") {
				stop = true
				break
			}
			got = append(got, x)
		}
		if stop || len(page.ExecutionIDs) == 0 {
			break
		}
		cursor = page.Next
	}
	return c.Diff("ListExecutionsPage", fmt.Sprintf("from %q, limit 3) paging ids that differ by case, trailing space and normal form (", base+"/"), want, got)
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

// readWhole checks one read of a log written in whole batches of size: dense from first, its
// length a multiple of size, each batch one tag.
func wholeBatches(envs []spi.Envelope, first int64, size int) string {
	if len(envs)%size != 0 {
		return fmt.Sprintf("%d envelopes, not a whole number of batches of %d", len(envs), size)
	}
	for i, e := range envs {
		if e.Sequence != first+int64(i) {
			return fmt.Sprintf("sequence %d at position %d", e.Sequence, i)
		}
		if i%size != 0 && tagOf(e) != tagOf(envs[i-1]) {
			return fmt.Sprintf("envelope %d from another batch (%s after %s)", e.Sequence, tagOf(e), tagOf(envs[i-1]))
		}
	}
	return ""
}

func tagOf(e spi.Envelope) string { return tagsOf([]spi.Envelope{e}) }

func esReadersWholeAppend(ctx context.Context, c *EventStoreCase) error {
	x := c.ExecID("readers-append")
	const size, rounds = 6, 12
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		return appendOK(ctx, c, x, batch(x, int64(i*size), size, fmt.Sprintf("b%d", i)), spi.AppendOptions{})
	}, func(_, i int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		why := wholeBatches(got, 0, size)
		if why == "" && after && len(got) != (i+1)*size {
			why = fmt.Sprintf("%d envelopes after batch %d returned", len(got), i+1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing appends of batches of %d (", x, size), why, "whole batches only")
		}
		return nil
	})
}

func esReadersWholeDeleteThrough(ctx context.Context, c *EventStoreCase) error {
	dt := c.Store.(spi.ThroughDeleter)
	x := c.ExecID("readers-delete")
	const step, n = 5, 60
	for from := 0; from < n; from += 30 {
		if err := appendOK(ctx, c, x, batch(x, int64(from), 30, "kept"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	// Round i deletes through step*(i+1)-1, leaving the tail from step*(i+1).
	return readersRace(ctx, c, 2, n/step-1, func(ctx context.Context, i int) error {
		through := int64(step*(i+1) - 1)
		if err := dt.DeleteThrough(ctx, x, through); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, %d", x, through), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		if len(got) == 0 {
			return c.Failf("Read", fmt.Sprintf("%q) racing deleteThrough in steps of %d (", x, step), "no envelopes", fmt.Sprintf("the tail through %d", n-1))
		}
		first := got[0].Sequence
		why := ""
		switch {
		case first%step != 0:
			why = fmt.Sprintf("first sequence %d: a deleteThrough seen half done", first)
		case got[len(got)-1].Sequence != n-1 || int64(len(got)) != n-first:
			why = fmt.Sprintf("%d envelopes from %d to %d", len(got), first, got[len(got)-1].Sequence)
		case after && first != int64(step*(i+1)):
			why = fmt.Sprintf("first sequence %d after deleteThrough %d returned", first, step*(i+1)-1)
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing deleteThrough in steps of %d (", x, step), why, fmt.Sprintf("a dense tail to %d starting at a multiple of %d", n-1, step))
		}
		return nil
	})
}

func esStoreNowUnit(ctx context.Context, c *EventStoreCase) error {
	clock := c.Store.(spi.Clock)
	for i := 0; i < 3; i++ {
		now, err := clock.StoreNow(ctx)
		if err != nil {
			return c.Failf("StoreNow", "", err, "nil")
		}
		if now < 1e12 || now >= 1e13 {
			unit := "neither"
			switch {
			case now >= 1e9 && now < 1e10:
				unit = "seconds"
			case now >= 1e15 && now < 1e16:
				unit = "microseconds"
			case now >= 1e18:
				unit = "nanoseconds"
			}
			return c.Failf("StoreNow", "", fmt.Sprintf("%d (%s)", now, unit), "epoch milliseconds, 10^12 <= now < 10^13")
		}
	}
	return nil
}

func esReadersWholeCopyPrefix(ctx context.Context, c *EventStoreCase) error {
	cp := c.Store.(spi.PrefixCopier)
	src := c.ExecID("copy-source")
	const n, copies = 40, 8
	if err := appendOK(ctx, c, src, batch(src, 0, n, "src"), spi.AppendOptions{}); err != nil {
		return err
	}
	targets := make([]string, copies)
	for i := range targets {
		targets[i] = c.ExecID("copy-target")
	}
	return readersRace(ctx, c, 2, copies, func(ctx context.Context, i int) error {
		if err := cp.CopyPrefix(ctx, src, targets[i], n-1); err != nil {
			return c.Failf("CopyPrefix", fmt.Sprintf("%q, %q, %d", src, targets[i], n-1), err, "nil")
		}
		return nil
	}, func(_, i int, after bool) error {
		t := targets[i]
		got, err := readAll(ctx, c, t)
		if err != nil {
			return err
		}
		if (len(got) != 0 || after) && len(got) != n {
			return c.Failf("Read", fmt.Sprintf("%q) racing CopyPrefix(%q, it, %d) (", t, src, n-1), fmt.Sprintf("%d envelopes", len(got)), fmt.Sprintf("0 or %d (%d once it returned)", n, n))
		}
		return nil
	})
}

func esReadersWholeDeleteExecution(ctx context.Context, c *EventStoreCase) error {
	d := c.Store.(spi.ExecutionDeleter)
	x := c.ExecID("readers-delete-execution")
	const n, rounds = 40, 8
	if err := appendOK(ctx, c, x, batch(x, 0, n, "r0"), spi.AppendOptions{}); err != nil {
		return err
	}
	// Round i deletes the log and writes a new one of n envelopes.
	return readersRace(ctx, c, 2, rounds, func(ctx context.Context, i int) error {
		if err := d.DeleteExecution(ctx, x); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
		}
		return appendOK(ctx, c, x, batch(x, 0, n, fmt.Sprintf("r%d", i+1)), spi.AppendOptions{})
	}, func(_, _ int, after bool) error {
		got, err := readAll(ctx, c, x)
		if err != nil {
			return err
		}
		why := wholeBatches(got, 0, n)
		if why == "" && after && len(got) != n {
			why = "no envelopes after the new log was appended"
		}
		if why != "" {
			return c.Failf("Read", fmt.Sprintf("%q) racing DeleteExecution and a new log of %d (", x, n), why, fmt.Sprintf("0 or %d envelopes from 0", n))
		}
		return nil
	})
}
