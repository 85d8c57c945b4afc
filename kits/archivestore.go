package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ArchiveStoreCase is what an ArchiveStore check runs against.
type ArchiveStoreCase = Case[spi.ArchiveStore]

// ArchiveStoreKit is the ArchiveStore conformance kit (spec §7).
func ArchiveStoreKit() Kit[spi.ArchiveStore] {
	type C = Check[spi.ArchiveStore]
	return Kit[spi.ArchiveStore]{Name: "archivestore", Seam: manifest.SeamArchiveStore, Checks: append([]C{
		{ID: "archivestore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ArchiveStoreCase) error {
				return versionClaim(c, manifest.SeamArchiveStore)
			}},
		{ID: "archivestore/keeps-removed-exactly", Clauses: []string{"S7.as.compact-archives-first", "I-STORE-18"}, Level: spec.Must,
			Doc: "the envelopes a compaction removed read back exactly, value-exact, ascending", Run: asKeepsRemoved},
		{ID: "archivestore/roundtrip-precision", Clauses: []string{"I-STORE-18", "I-STORE-3", "I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold are archived exactly", Run: asRoundtripPrecision},
		{ID: "archivestore/reappend-idempotent", Clauses: []string{"I-STORE-18"}, Level: spec.Must,
			Doc: "re-archiving equal envelopes (a retried compaction) succeeds and duplicates nothing", Run: asIdempotent},
		{ID: "archivestore/reappend-different-conflict", Clauses: []string{"I-STORE-18"}, Level: spec.Must,
			Doc: "a different envelope at an archived sequence is a conflict and the whole call changes nothing", Run: asConflict},
		{ID: "archivestore/concurrent-archivers", Clauses: []string{"I-STORE-18", "I-STORE-14"}, Level: spec.Must,
			Doc: "of racing archivers writing different envelopes at the same sequences exactly one wins, whole", Run: asConcurrent},
		{ID: "archivestore/isolation", Clauses: []string{"I-STORE-4"}, Level: spec.Must,
			Doc: "archives of two executions never mix, also when one id extends the other", Run: asIsolation},
		{ID: "archivestore/delete-execution", Clauses: []string{"S7.as.delete-execution", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution}, Doc: "deleteExecution removes one execution's archive only", Run: asDelete},
		{ID: "archivestore/replace-segments", Clauses: []string{"S7.as.replace-segments", "I-STORE-19"}, Level: spec.Must,
			Requires: []string{spi.MethodReplaceSegments}, Doc: "replaceSegments swaps exactly the range and leaves the rest", Run: asReplace},
	}, asGapChecks()...)}
}

// CheckArchiveStore runs the ArchiveStore kit and returns errors.Join of every failure and unknown.
func CheckArchiveStore(ctx context.Context, factory Factory[spi.ArchiveStore], opts Options) error {
	results, err := Run(ctx, ArchiveStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func archive(ctx context.Context, c *ArchiveStoreCase, x string, events []spi.Envelope) error {
	if err := c.Store.Append(ctx, x, events); err != nil {
		return c.Failf("Append", appendArgs(x, events, spi.AppendOptions{}), err, "nil")
	}
	return nil
}

func expectArchive(ctx context.Context, c *ArchiveStoreCase, x string, want []spi.Envelope, after string) error {
	got, err := c.Store.Read(ctx, x)
	if err != nil {
		return c.Failf("Read", fmt.Sprintf("%q", x), err, "nil")
	}
	if want == nil {
		want = []spi.Envelope{}
	}
	if got == nil {
		got = []spi.Envelope{}
	}
	if d := c.Diff("Read", fmt.Sprintf("%q) sequences after (%s", x, after), seqs(want), seqs(got)); d != nil {
		return d
	}
	for i := range got {
		if (len(got[i].Metadata) == 0) != (len(want[i].Metadata) == 0) {
			return c.Failf("Read", fmt.Sprintf("%q) envelope %d metadata (", x, i), string(got[i].Metadata), string(want[i].Metadata))
		}
	}
	return c.Diff("Read", fmt.Sprintf("%q) after (%s", x, after), want, got, envCmp)
}

// removed builds what a compaction through `through` removes: hard values in payload and metadata.
func removed(x string, through int64) []spi.Envelope {
	hv := hardValues()
	out := []spi.Envelope{}
	for s := int64(0); s <= through; s++ {
		e := env(x, s, "archived")
		v := hv[int(s)%len(hv)]
		e.Payload = json.RawMessage(v.payload)
		if v.metadata != "" {
			e.Metadata = json.RawMessage(v.metadata)
		}
		out = append(out, e)
	}
	return out
}

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

func asIsolation(ctx context.Context, c *ArchiveStoreCase) error {
	a, b := c.ExecID("iso-a"), c.ExecID("iso-b")
	ra, rb := removed(a, 3), removed(b, 2)
	if err := archive(ctx, c, a, ra); err != nil {
		return err
	}
	if err := archive(ctx, c, b, rb); err != nil {
		return err
	}
	if err := expectArchive(ctx, c, a, ra, "archiving two executions"); err != nil {
		return err
	}
	if err := expectArchive(ctx, c, b, rb, "archiving two executions"); err != nil {
		return err
	}
	// Ids that extend a's id hold other and later sequences; a's archive stays a's own (I-STORE-4).
	for _, ext := range []string{a + "0", a + "/", a + "-1"} {
		if err := archive(ctx, c, ext, removed(ext, 6)); err != nil {
			return err
		}
	}
	return expectArchive(ctx, c, a, ra, "archiving ids that extend it")
}

func asDelete(ctx context.Context, c *ArchiveStoreCase) error {
	d := c.Store.(spi.ArchiveDeleter)
	x, y := c.ExecID("del"), c.ExecID("del-keep")
	if err := archive(ctx, c, x, removed(x, 2)); err != nil {
		return err
	}
	ry := removed(y, 2)
	if err := archive(ctx, c, y, ry); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if err := expectArchive(ctx, c, x, nil, "DeleteExecution"); err != nil {
		return err
	}
	if err := d.DeleteExecution(ctx, x); err != nil {
		return c.Failf("DeleteExecution", fmt.Sprintf("%q) again (", x), err, "nil")
	}
	return expectArchive(ctx, c, y, ry, "DeleteExecution of another id")
}

func asReplace(ctx context.Context, c *ArchiveStoreCase) error {
	rs := c.Store.(spi.SegmentReplacer)
	x := c.ExecID("replace")
	rm := removed(x, 9)
	if err := archive(ctx, c, x, rm); err != nil {
		return err
	}
	r3, r4 := env(x, 3, "resealed"), env(x, 4, "resealed")
	r := spi.SeqRange{From: 3, Through: 5}
	if err := rs.ReplaceSegments(ctx, x, r, []spi.Envelope{r3, r4}); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [3, 5], [seq 3..4]", x), err, "nil")
	}
	want := append(append(append([]spi.Envelope{}, rm[:3]...), r3, r4), rm[6:]...)
	if err := expectArchive(ctx, c, x, want, "ReplaceSegments([3,5], 3..4)"); err != nil {
		return err
	}
	// An empty replacement drops the range (I-STORE-19): 7 and 8 go, 6 and 9 stay.
	if err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 7, Through: 8}, nil); err != nil {
		return c.Failf("ReplaceSegments", fmt.Sprintf("%q, [7, 8], []", x), err, "nil")
	}
	want = append(append([]spi.Envelope{}, want[:len(want)-3]...), want[len(want)-1])
	if err := expectArchive(ctx, c, x, want, "ReplaceSegments([7,8], no envelopes)"); err != nil {
		return err
	}
	bad := env(x, 8, "outside")
	err := rs.ReplaceSegments(ctx, x, spi.SeqRange{From: 0, Through: 1}, []spi.Envelope{bad})
	if e := expectErr(c, "ReplaceSegments", fmt.Sprintf("%q, [0, 1], [seq 8]", x), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	return expectArchive(ctx, c, x, want, "a refused ReplaceSegments")
}

func asConcurrent(ctx context.Context, c *ArchiveStoreCase) error {
	for round := 0; round < 4; round++ {
		c.Progress(round, 4)
		x := c.ExecID("race")
		const n = 5
		batches := make([][]spi.Envelope, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := 0; i < n; i++ {
			batches[i] = batch(x, 0, 3, fmt.Sprintf("archiver%d", i))
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				errs[i] = c.Store.Append(ctx, x, batches[i])
			}(i)
		}
		close(gate)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				return c.Failf("Append", fmt.Sprintf("%d racing archivers of different envelopes at 0..2", n), "two winners", "exactly one")
			case err == nil:
				winner = i
			case !errors.Is(err, spi.ErrConflict):
				return c.Failf("Append", appendArgs(x, batches[i], spi.AppendOptions{})+" racing", err, "nil or a conflict")
			}
		}
		if winner < 0 {
			return c.Failf("Append", fmt.Sprintf("%d racing archivers", n), "no winner", "exactly one")
		}
		if err := expectArchive(ctx, c, x, batches[winner], fmt.Sprintf("racing archivers, %d won", winner)); err != nil {
			return err
		}
	}
	return nil
}
