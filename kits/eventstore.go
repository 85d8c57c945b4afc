package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// appendOK appends and turns any error into a violation.
func appendOK(ctx context.Context, c *EventStoreCase, exec string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := c.Store.Append(ctx, exec, events, opts); err != nil {
		return c.Failf("Append", appendArgs(exec, events, opts), err, "nil")
	}
	return nil
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

func esHas(c *EventStoreCase, method string) bool {
	return spi.Has(manifest.SeamEventStore, c.Store, method)
}

// EventStoreFactory makes a fresh EventStore for one check.
type EventStoreFactory = Factory[spi.EventStore]

// EventStoreCase is what an EventStore check runs against.
type EventStoreCase = Case[spi.EventStore]

// EventStoreKit is the EventStore conformance kit (spec §7, DESIGN §6).
func EventStoreKit() Kit[spi.EventStore] {
	return Kit[spi.EventStore]{Name: "eventstore", Seam: manifest.SeamEventStore, Checks: eventStoreChecks()}
}

func eventStoreChecks() []Check[spi.EventStore] {
	type C = Check[spi.EventStore]
	return []C{
		{ID: "eventstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: esVersionClaim},
		{ID: "eventstore/append-read-order", Clauses: []string{"I-STORE-3", "S4.envelope.shape"}, Level: spec.Must,
			Doc: "batches appended in turn read back ascending and dense from 0", Run: esAppendReadOrder},
		{ID: "eventstore/read-unknown-empty", Clauses: []string{"I-STORE-3"}, Level: spec.Must,
			Doc: "reading an execution that was never written gives no envelopes and no error", Run: esReadUnknown},
		{ID: "eventstore/append-conflict", Clauses: []string{"I-STORE-1"}, Level: spec.Must,
			Doc: "an append at a taken or future sequence is a conflict and writes nothing", Run: esAppendConflict},
		{ID: "eventstore/append-invalid", Clauses: []string{"I-STORE-1", "S4.envelope.shape"}, Level: spec.Must,
			Doc: "malformed batches (gap, other execution, bad JSON, empty id) are invalid arguments and write nothing", Run: esAppendInvalid},
		{ID: "eventstore/append-atomic-batch", Clauses: []string{"I-STORE-2"}, Level: spec.Must,
			Doc: "a batch overlapping the log is refused whole; no prefix of it lands", Run: esAppendAtomic},
		{ID: "eventstore/append-concurrent-one-wins", Clauses: []string{"I-STORE-1", "I-STORE-2"}, Level: spec.Must,
			Doc: "of racing appends at one sequence exactly one wins and its batch is stored whole", Run: esConcurrentOneWins},
		{ID: "eventstore/append-cancel-not-torn", Clauses: []string{"I-STORE-2"}, Level: spec.Must,
			Doc: "an append whose context is cancelled mid-call lands whole or not at all", Run: esCancelNotTorn},
		{ID: "eventstore/roundtrip-values", Clauses: []string{"I-STORE-3", "S4.envelope.shape"}, Level: spec.Must,
			Doc: "payload and metadata round-trip value-exactly (unicode, escapes, numbers, nesting, empty containers, a 1 MiB payload with 64 KiB metadata)", Run: esRoundtrip},
		{ID: "eventstore/roundtrip-precision", Clauses: []string{"I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold (integers beyond 2^53 and 2^64, 30-digit fractions) round-trip exactly", Run: esRoundtripPrecision},
		{ID: "eventstore/isolation", Clauses: []string{"I-STORE-4"}, Level: spec.Must,
			Doc: "interleaved writes to two executions never mix", Run: esIsolation},
		{ID: "eventstore/execution-ids", Clauses: []string{"S7.es.quarantine-prefix-reserved", "I-STORE-4"}, Level: spec.Must,
			Doc: "control-stream ids (__loom_quarantine__:<chainId>) and awkward ids (quotes, %, unicode, 1 000 bytes, ids differing only by case, trailing space or normal form) are kept apart and round-trip", Run: esExecutionIDs},
		{ID: "eventstore/linearizable", Clauses: []string{"I-STORE-14", "I-STORE-1"}, Level: spec.Must,
			Doc: "a recorded history of concurrent appends and reads is linearizable against a model log (porcupine)", Run: esLinearizable},
		{ID: "eventstore/linearizable-fenced", Clauses: []string{"S6.fencing.zombie", "I-STORE-6", "I-STORE-14"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFence},
			Doc:      "workers that acquire fences and append under them give a history linearizable against a fenced log model (porcupine)", Run: esLinearizableFenced},
		{ID: "eventstore/read-range-bounds", Clauses: []string{"S7.es.read-range", "I-STORE-5"}, Level: spec.Must,
			Requires: []string{spi.MethodReadRange}, Doc: "readRange returns exactly from <= seq < to, empty ranges and ranges past the tail included", Run: esReadRange},
		{ID: "eventstore/fence-zombie", Clauses: []string{"S6.fencing.zombie", "S7.es.acquire-fence", "I-STORE-6", "I-STORE-100"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFence}, Doc: "after a newer fence, the stale holder's append is refused and writes nothing, and the new holder's lands", Run: esFenceZombie},
		{ID: "eventstore/fence-monotonic", Clauses: []string{"S7.es.acquire-fence", "I-STORE-6", "I-STORE-100"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFence}, Doc: "concurrently acquired fence tokens are distinct, stale once a newer fence is taken, and only the newest writes; that the newest is the largest is our choice (I-STORE-100), so recommended", Run: esFenceMonotonic},
		{ID: "eventstore/fence-race", Clauses: []string{"S6.fencing.zombie", "I-STORE-6", "I-STORE-14"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFence},
			Doc:      "an append under a fence races a newer acquireFence and a read after it, 24 rounds (every other one with no pause before the newer fence): either the append is fenced and never lands, or it landed before the new fence and that read sees it; a stale-token append never lands after a newer fence returned and a read saw nothing", Run: esFenceRace},
		{ID: "eventstore/fence-if", Clauses: []string{"S7.es.acquire-fence-if", "I-STORE-7", "I-STORE-100"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFenceIf}, Doc: "acquireFenceIf issues a token only when the current one is the expected one", Run: esFenceIf},
		{ID: "eventstore/fence-if-race", Clauses: []string{"S7.es.acquire-fence-if", "I-STORE-7"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFenceIf}, Doc: "of racing acquireFenceIf calls with the same expectation exactly one wins", Run: esFenceIfRace},
		{ID: "eventstore/append-if-unchanged", Clauses: []string{"S7.es.append-if-unchanged", "I-STORE-8"}, Level: spec.Must,
			Requires: []string{spi.MethodAppendIfUnchanged}, Doc: "a conditional append succeeds on a fresh anchor and is a conflict on a stale one", Run: esAppendIfUnchanged},
		{ID: "eventstore/append-if-unchanged-fenced", Clauses: []string{"S6.fencing.zombie", "S7.es.append-if-unchanged", "I-STORE-8", "I-STORE-6"}, Level: spec.Must,
			Requires: []string{spi.MethodAppendIfUnchanged, spi.MethodAcquireFence}, Doc: "a conditional append with a stale fence is fenced and writes nothing, even on a fresh anchor; with the current fence it lands", Run: esAppendIfUnchangedFenced},
		{ID: "eventstore/incarnation-anchor", Clauses: []string{"S7.es.incarnation-anchor", "S7.es.incarnation-metadata-only"}, Level: spec.Must,
			Requires: []string{spi.MethodAppendIfUnchanged, spi.MethodDeleteExecution}, Since: "2.3.0",
			Doc: "an anchor from before delete+recreate never matches after it, even with a byte-identical sequence 0, and no event carries the incarnation", Run: esIncarnation},
		{ID: "eventstore/store-now", Clauses: []string{"S7.es.store-now", "I-STORE-9"}, Level: spec.Should,
			Requires: []string{spi.MethodStoreNow}, Doc: "storeNow is within an hour of the caller's clock and does not go back (its unit is eventstore/store-now-unit, MUST)", Run: esStoreNow},
		{ID: "eventstore/delete-through", Clauses: []string{"S7.es.delete-through-atomic", "I-STORE-10"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteThrough}, Doc: "deleteThrough removes 0..through (0 included) and nothing after; the head is kept", Run: esDeleteThrough},
		{ID: "eventstore/delete-through-concurrent", Clauses: []string{"S7.es.delete-through-concurrent", "S7.es.delete-through-atomic"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteThrough}, Doc: "appends racing a deleteThrough all survive", Run: esDeleteThroughConcurrent},
		{ID: "eventstore/sealing-capability", Clauses: []string{"S7.es.sealing-forwarded", "I-STORE-22"}, Level: spec.Must,
			Requires: []string{spi.MethodSealingCapability}, Doc: "sealingCapability is nil or well-formed, and stable", Run: esSealing},
		{ID: "eventstore/copy-prefix", Clauses: []string{"S7.es.copy-prefix", "I-STORE-11"}, Level: spec.Must,
			Requires: []string{spi.MethodCopyPrefix}, Doc: "copyPrefix copies exactly 0..through into an empty target, rewriting only executionId", Run: esCopyPrefix},
		{ID: "eventstore/copy-prefix-values", Clauses: []string{"S7.es.copy-prefix", "I-STORE-11", "I-STORE-3"}, Level: spec.Must,
			Requires: []string{spi.MethodCopyPrefix}, Doc: "copyPrefix carries the round-trip corpus value-exact (unicode, escapes, integers beyond int64 a double holds, 16-digit fractions, empty containers, deep nesting): a copy never re-encodes", Run: esCopyPrefixValues},
		{ID: "eventstore/copy-prefix-trimmed-target", Clauses: []string{"I-STORE-52"}, Level: spec.Must,
			Requires: []string{spi.MethodCopyPrefix, spi.MethodDeleteThrough}, Doc: "copyPrefix onto a target deleteThrough emptied is already exists, and a through outside the source is refused first as invalid; our choices, so recommended", Run: esCopyPrefixTrimmedTarget},
		{ID: "eventstore/delete-execution", Clauses: []string{"S7.es.delete-execution", "I-STORE-12", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution}, Doc: "deleteExecution empties one execution, leaves others, and the id restarts at 0", Run: esDeleteExecution},
		{ID: "eventstore/delete-execution-fences", Clauses: []string{"S6.fencing.zombie", "I-STORE-6", "I-STORE-12", "I-STORE-51", "I-STORE-82", "I-STORE-100"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution, spi.MethodAcquireFence}, Doc: "a fence token from before deleteExecution cannot write the new incarnation, the next token is greater and writes it; the same when the id was fenced but never written", Run: esDeleteFences},
		{ID: "eventstore/list-executions-page", Clauses: []string{"S7.es.list-executions-page", "I-STORE-13"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage}, Doc: "paging lists every execution exactly once, ascending, at most limit per page; one deleteExecution removed is not listed", Run: esListPages},
		{ID: "eventstore/list-executions-concurrent", Clauses: []string{"S7.es.list-executions-page", "I-STORE-13"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage}, Doc: "executions inserted while paging never make a page skip or repeat an id", Run: esListConcurrent},
		{ID: "eventstore/declared-methods-work", Clauses: []string{"I-STORE-24"}, Level: spec.Must,
			Doc: "every method the store declares, a fenced append included, answers a harmless call without unsupported", Run: esDeclaredMethodsWork},
		{ID: "eventstore/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27", "I-STORE-80"}, Level: spec.Must,
			Doc: "append, read and every optional method the store declares (readRange, acquireFence, acquireFenceIf, appendIfUnchanged, deleteThrough, deleteExecution, copyPrefix) keep ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . | _ - blank %; that differ by one of those delimiters swapped for another or for its escape (a:b, a_b, a%3Ab); or that are 1 024 bytes long and differ only in their last byte", Run: esIDsEveryMethod},
		{ID: "eventstore/list-executions-byte-order", Clauses: []string{"I-STORE-28"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage},
			Doc:      "listExecutionsPage lists ids that differ only by case, trailing space or normal form in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order); our choice, so recommended", Run: esListByteOrder},
		{ID: "eventstore/explore", Clauses: EventStoreExploreClauses(), Level: spec.Must,
			Doc: "seeded scripts of every declared method over ids that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it, which a store may refuse), and values from the round-trip corpus, answer as the in-memory reference does (the first difference is shrunk to a minimal script)", Run: esExplore},
		{ID: "eventstore/refusal-order", Clauses: []string{"I-STORE-50"}, Level: spec.Must,
			Doc: "a call wrong in several ways gets invalid argument, then fenced, then conflict; an empty batch is refused alike (empty id, stale fence, stale anchor) and otherwise writes nothing; a negative sequence is invalid, never a conflict; our choices, so recommended", Run: esRefusalOrder},
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
		{ID: "eventstore/list-executions-ids-apart", Clauses: []string{"I-STORE-13", "I-STORE-4"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage},
			Doc:      "listExecutionsPage lists ids that differ only by case, trailing space or normal form once each, in whatever order the store sorts them", Run: esListIDsApart},
		{ID: "eventstore/read-range-edges", Clauses: []string{"I-STORE-66"}, Level: spec.Must,
			Requires: []string{spi.MethodReadRange}, Doc: "readRange of an inverted range gives nothing; a negative from is an invalid argument; our choices, so recommended", Run: esReadRangeEdges},
		{ID: "eventstore/unfenced-append", Clauses: []string{"I-STORE-67"}, Level: spec.Must,
			Requires: []string{spi.MethodAcquireFence},
			Doc:      "an append without a fence token is accepted while another holder's fence is current, and after deleteExecution; our choice, so recommended", Run: esUnfencedAppend},
		{ID: "eventstore/delete-through-negative", Clauses: []string{"I-STORE-68"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteThrough}, Doc: "deleteThrough with a negative through is an invalid argument and deletes nothing; our choice, so recommended", Run: esDeleteThroughNegative},
		{ID: "eventstore/delete-execution-absent", Clauses: []string{"I-STORE-71"}, Level: spec.Must,
			Requires: []string{spi.MethodDeleteExecution}, Doc: "deleteExecution of an id never written, or deleted already, succeeds and changes nothing; our choice, so recommended", Run: esDeleteExecutionAbsent},
		{ID: "eventstore/list-executions-edges", Clauses: []string{"I-STORE-69"}, Level: spec.Must,
			Requires: []string{spi.MethodListExecutionsPage},
			Doc:      "a limit below 1 is an invalid argument, and an execution deleteThrough emptied is not listed; our choices, so recommended", Run: esListEdges},
	}
}

// CheckEventStore runs the EventStore kit and returns errors.Join of every failure and unknown.
func CheckEventStore(ctx context.Context, factory EventStoreFactory, opts Options) error {
	results, err := Run(ctx, EventStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func esVersionClaim(ctx context.Context, c *EventStoreCase) error {
	return versionClaim(c, manifest.SeamEventStore)
}
