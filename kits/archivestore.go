package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ArchiveStoreCase is what an ArchiveStore check runs against.
type ArchiveStoreCase = Case[spi.ArchiveStore]

// ArchiveStoreKit is the ArchiveStore conformance kit (spec §7).
func ArchiveStoreKit() Kit[spi.ArchiveStore] {
	type C = Check[spi.ArchiveStore]
	return Kit[spi.ArchiveStore]{Name: "archivestore", Seam: manifest.SeamArchiveStore, Checks: []C{
		{ID: "archivestore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ArchiveStoreCase) error {
				return versionClaim(c, manifest.SeamArchiveStore)
			}},
		{ID: "archivestore/keeps-removed-exactly", Clauses: []string{"S7.as.compact-archives-first", "I-STORE-18"}, Level: spec.Must,
			Doc: "the envelopes a compaction removed read back exactly, value-exact, ascending", Run: asKeepsRemoved},
		{ID: "archivestore/roundtrip-values", Clauses: []string{"I-STORE-18", "I-STORE-19"}, Level: spec.Must,
			Doc: "the round-trip corpus (unicode, escapes, integers beyond int64 a double holds, 16-digit fractions, empty containers, deep nesting) archived in one call, and put in by replaceSegments when served, reads back value-exact", Run: asRoundtripValues},
		{ID: "archivestore/append-order", Clauses: []string{"I-STORE-53"}, Level: spec.Must,
			Doc: "an append whose sequences repeat or go back is invalid and archives nothing; our choice, so recommended", Run: asAppendOrder},
		{ID: "archivestore/roundtrip-precision", Clauses: []string{"I-STORE-18"}, Level: spec.Must,
			Doc: "numbers a double cannot hold are archived exactly", Run: asRoundtripPrecision},
		{ID: "archivestore/reappend-idempotent", Clauses: []string{"I-STORE-70"}, Level: spec.Must,
			Doc: "re-archiving equal envelopes (a retried compaction) succeeds and duplicates nothing; our choice, so recommended", Run: asIdempotent},
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
		{ID: "archivestore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}, Level: spec.Must,
			Doc: "append, read and every declared optional method (replaceSegments, deleteExecution of either id of a pair) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . | _ - blank %; that differ by one of those delimiters swapped for another or for its escape (a:b, a_b, a%3Ab); or that are 1 024 bytes long and differ only in their last byte", Run: asIDsEveryMethod},
		{ID: "archivestore/reappend-respelled", Clauses: []string{"I-STORE-70", "I-STORE-29"}, Level: spec.Must,
			Doc: "re-archiving the same values in another JSON spelling (key order, 1 vs 10e-1, escapes) is a no-op, and a number a double cannot tell apart is a different value (a conflict that changes nothing); our choices, so recommended", Run: asReappendRespelled},
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
		{ID: "archivestore/explore", Clauses: asExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of appends, re-appends (of the same envelopes, of different ones, of a double's twins), segment replacements and deletes, and reads, over ids that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with payloads from the round-trip corpus, answer as the in-memory reference does; about one step in five is two made at once on one id, each by its own client, answered as the reference answers them in one order or the other (the first difference is shrunk to a minimal script)", Run: asExplore().run},
		{ID: "archivestore/reappend-keeps-once", Clauses: []string{"I-STORE-18"}, Level: spec.Must,
			Doc: "re-archived equal envelopes are never stored twice, whether the store answers success or a conflict", Run: asKeepsOnce},
		{ID: "archivestore/reappend-different-values", Clauses: []string{"I-STORE-18"}, Level: spec.Must,
			Doc: "an envelope whose value differs at an archived sequence (a string for a number, an added null key, dropped metadata, a letter's case) is a conflict that changes nothing", Run: asReappendDifferentValues},
	}}
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

func asHas(c *ArchiveStoreCase, method string) bool {
	return spi.Has(manifest.SeamArchiveStore, c.Store, method)
}
