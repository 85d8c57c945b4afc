package broken

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// es is the memory EventStore with every method overridable by embedding.
type es struct{ *memory.EventStore }

func newES() es { return es{memory.NewEventStoreWithClock(time.Now)} }

func lastSeq(envs []spi.Envelope) int64 {
	if len(envs) == 0 {
		return -1
	}
	return envs[len(envs)-1].Sequence
}

// EventStores lists the broken EventStores.
func EventStores() []Store[spi.EventStore] {
	return []Store[spi.EventStore]{
		{"off-by-one-read-range", "readRange includes its upper bound", "eventstore/read-range-bounds", func() spi.EventStore { return offByOneRange{newES()} }},
		{"non-atomic-batch", "a batch is written envelope by envelope, skipping taken sequences", "eventstore/append-atomic-batch", func() spi.EventStore { return nonAtomicBatch{newES()} }},
		{"overwrite-stale", "an append at a taken sequence overwrites the log from there", "eventstore/append-conflict", func() spi.EventStore { return overwriteStale{newES()} }},
		{"lost-concurrent-append", "check-then-act: racing appends both win and one is lost", "eventstore/append-concurrent-one-wins", func() spi.EventStore { return checkThenAct{newES(), &sync.Mutex{}, paceHeld} }},
		{"torn-on-cancel", "a cancelled append leaves the chunks written so far", "eventstore/append-cancel-not-torn", func() spi.EventStore { return tornOnCancel{newES()} }},
		{"lands-after-cancel", "an append that returned a cancellation error still commits later", "eventstore/append-cancel-not-torn", func() spi.EventStore { return landsAfterCancel{newES()} }},
		{"lossy-numbers", "payload numbers pass through float64", "eventstore/roundtrip-precision", func() spi.EventStore { return lossyNumbers{newES()} }},
		{"dropped-metadata", "metadata is not stored", "eventstore/roundtrip-values", func() spi.EventStore { return dropMetadata{newES()} }},
		{"prefix-leak", "reading an empty id returns the log of an id it prefixes", "eventstore/isolation", func() spi.EventStore { return prefixLeak{newES()} }},
		{"truncated-ids", "execution ids are cut to 255 bytes, so two long ids share one log", "eventstore/execution-ids", func() spi.EventStore { return truncatedIDs{newES()} }},
		{"stale-read-under-load", "reads during an append answer from a stale cache", "eventstore/linearizable", func() spi.EventStore {
			return staleUnderLoad{newES(), &atomic.Int64{}, &sync.Map{}}
		}},
		{"stale-fence-accepted", "a token below the current one still writes", "eventstore/fence-zombie", func() spi.EventStore { return newFenced(&fenceBook{stale: true}) }},
		{"stale-fence-accepted-concurrent", "a token below the current one still writes, seen among concurrent workers", "eventstore/linearizable-fenced", func() spi.EventStore { return newFenced(&fenceBook{stale: true}) }},
		{"fence-token-reused", "concurrent acquireFence calls can issue the same token", "eventstore/fence-monotonic", func() spi.EventStore { return newFenced(&fenceBook{racy: true}) }},
		{"fence-tokens-descending", "every acquireFence issues a token never issued before, each lower than the last (breaks only a recommendation: unique tokens checked against the current one fence a zombie)", "eventstore/fence-monotonic", func() spi.EventStore { return newFenced(&fenceBook{down: true}) }},
		{"fence-if-unconditional", "acquireFenceIf ignores the expected token", "eventstore/fence-if", func() spi.EventStore { return newFenced(&fenceBook{ignore: true}) }},
		{"anchor-ignored", "appendIfUnchanged never checks its anchor", "eventstore/append-if-unchanged", func() spi.EventStore { return anchorIgnored{newES()} }},
		{"incarnation-anchor-reused", "claims 2.6.0 but the anchor is the sequence-0 bytes and length, reused after delete+recreate", "eventstore/incarnation-anchor", func() spi.EventStore { return contentAnchor{newES(), "2.6.0"} }},
		{"store-now-seconds", "storeNow is in seconds", "eventstore/store-now", func() spi.EventStore { return nowInSeconds{newES()} }},
		{"delete-through-keeps-seq0", "deleteThrough leaves sequence 0", "eventstore/delete-through", func() spi.EventStore { return keepsSeqZero{newES(), &sync.Map{}} }},
		{"delete-through-past-through", "deleteThrough also deletes through+1", "eventstore/delete-through", func() spi.EventStore { return deletesPastThrough{newES()} }},
		{"delete-through-eats-concurrent", "deleteThrough also deletes appends that land while it runs", "eventstore/delete-through-concurrent", func() spi.EventStore { return throughRace{newES(), paceHeld} }},
		{"copy-prefix-one-more", "copyPrefix copies through+1", "eventstore/copy-prefix", func() spi.EventStore { return copyOneMore{newES()} }},
		{"delete-keeps-head", "deleteExecution keeps the next sequence, so the id cannot restart at 0", "eventstore/delete-execution", func() spi.EventStore { return deleteKeepsHead{newES()} }},
		{"offset-cursor", "page cursors are offsets, which shift under concurrent inserts", "eventstore/list-executions-concurrent", func() spi.EventStore { return offsetCursor{newES()} }},
		{"unbounded-page", "a page ignores its limit", "eventstore/list-executions-page", func() spi.EventStore { return unboundedPage{newES()} }},
		{"malformed-sealing", "sealingCapability names no cipher", "eventstore/sealing-capability", func() spi.EventStore { return malformedSealing{newES()} }},
		{"future-claim", "claims EventStore SPI 3.0.0", "eventstore/version-claim", func() spi.EventStore { return futureClaim{newES()} }},
		{"unsupported-everything", "declares append and read and answers unsupported to both", "eventstore/append-read-order", func() spi.EventStore { return unsupportedEverything{} }},
		{"fence-says-unsupported", "a fenced append is written unfenced and reported unsupported", "eventstore/fence-zombie", func() spi.EventStore { return fenceSaysUnsupported{newES()} }},
		{"if-unchanged-ignores-fence", "appendIfUnchanged drops the fence, so a zombie's late outcome writes", "eventstore/append-if-unchanged-fenced", func() spi.EventStore { return anchorFenceIgnored{newES()} }},
		{"global-anchor", "the anchor is a store-wide write counter: a write to another execution makes it stale", "eventstore/append-if-unchanged", func() spi.EventStore { return newGlobalAnchor() }},
		{"commit-then-report-cancel", "commits a cancelled append and then reports the cancellation", "eventstore/append-cancel-not-torn", func() spi.EventStore { return commitThenCancel{newES()} }},
		{"case-insensitive-ids", "ids that differ only by case share one log", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), lowerCase} }},
		{"trimmed-ids", "trailing spaces are cut from ids", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), trimTrailing} }},
		{"normalised-ids", "ids are brought to Unicode NFC", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), composeAcute} }},
		{"lists-deleted", "listExecutionsPage lists every id ever written, deleted and emptied ones included", "eventstore/list-executions-page", func() spi.EventStore {
			return listsDeleted{newES(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"small-payloads", "payload and metadata over 1 KiB are refused", "eventstore/roundtrip-values", func() spi.EventStore { return smallPayloads{newES()} }},
		{"incarnation-in-events", "a recreated execution's envelopes carry metadata.incarnation", "eventstore/incarnation-anchor", newIncarnationInEvents},
		{"quarantine-streams-merged", "every __loom_quarantine__:<chainId> control stream shares one log", "eventstore/execution-ids", func() spi.EventStore { return keyedIDs{newES(), mergeQuarantine} }},
		{"negative-from-reads-all", "readRange with a negative from reads from sequence 0 instead of refusing it (breaks only a recommendation)", "eventstore/read-range-edges", func() spi.EventStore { return negativeFromReadsAll{newES()} }},
		{"unfenced-refused", "an append without a token is refused as fenced while a fence is held (breaks only a recommendation)", "eventstore/unfenced-append", func() spi.EventStore { return newUnfencedRefused() }},
		{"negative-through-noop", "deleteThrough with a negative through deletes nothing and succeeds (breaks only a recommendation)", "eventstore/delete-through-negative", func() spi.EventStore { return negativeThroughNoop{newES()} }},
		{"delete-absent-not-found", "deleteExecution of an id with no stored envelope answers not found (breaks only a recommendation)", "eventstore/delete-execution-absent", func() spi.EventStore { return deleteAbsentNotFound{newES()} }},
	}
}

// IncarnationReuseClaiming returns the incarnation-reusing store claiming version v; a claim below
// 2.3.0 must make the incarnation check skip, not fail.
func IncarnationReuseClaiming(v string) spi.EventStore { return contentAnchor{newES(), v} }

func classEventStores() []classStore[spi.EventStore] {
	type E = spi.EventStore
	ids := []string{"I-STORE-4", "I-STORE-27"}
	return []classStore[E]{
		class("delete-folds-case", "deleteExecution matches ids case-insensitively, deleting an id that differs only by case", "eventstore/ids-apart-every-method", ids,
			func() E { return deleteFoldsCase{newES()} }),
		class("fence-folds-case", "fence tokens are keyed by the lower-cased id, so fencing one id fences another that differs only by case", "eventstore/ids-apart-every-method", ids,
			func() E { return newFenceFoldsCase() }),
		class("fence-if-folds-case", "acquireFenceIf reads the current token case-insensitively, so another id's fence fails the expectation", "eventstore/ids-apart-every-method", ids,
			func() E { return newFenceIfFoldsCase() }),
		class("listing-collated", "listExecutionsPage orders ids case-insensitively (a before B)", "eventstore/list-executions-byte-order", []string{"I-STORE-28"},
			func() E { return listingCollated{newES(), collate} }),
		class("append-resend-noop", "an append re-sending the stored envelopes is taken for an idempotent retry and succeeds", "eventstore/append-resend-conflict", []string{"I-STORE-1", "I-STORE-29"},
			func() E { return appendResendNoop{newES()} }),
		class("validates-lazily", "a batch is written envelope by envelope, each validated as it is written, so valid ones before a bad one land", "eventstore/invalid-after-valid", []string{"I-STORE-2", "I-STORE-30"},
			func() E { return validatesLazily{newES()} }),
		class("append-visible-midway", "a batch is checked whole, then inserted one envelope per statement without a transaction; readers see part of it", "eventstore/readers-whole-append", []string{"I-STORE-2", "I-STORE-31"},
			func() E { return appendVisibleMidway{newWatchedES(), &sync.Mutex{}} }),
		class("delete-through-visible-midway", "deleteThrough deletes one sequence per statement; readers see a partly deleted prefix", "eventstore/readers-whole-delete-through", []string{"S7.es.delete-through-atomic", "I-STORE-31"},
			func() E { return deleteThroughVisibleMidway{newWatchedES()} }),
		class("replica-lag", "reads are served by an asynchronous replica about a millisecond behind the acknowledged appends", "eventstore/linearizable", []string{"I-STORE-14"},
			func() E { return newReplicaLag() }),
		class("stale-read-under-contention", "reads answer from a cache while two or more appends are in flight", "eventstore/linearizable", []string{"I-STORE-14"},
			func() E { return staleUnderContention{newES(), &atomic.Int64{}, &sync.Map{}} }),
		class("fence-if-race-both-win", "acquireFenceIf compares and then writes in two steps, so racing calls with one expectation can both win", "eventstore/fence-if-race", []string{"I-STORE-7"},
			func() E { return newFenced(&fenceBook{racy: true}) }),
		class("copy-prefix-visible-midway", "copyPrefix copies in chunks of ten, one statement each; readers of the target see part of the prefix", "eventstore/readers-whole-copy-prefix", []string{"I-STORE-11", "I-STORE-31"},
			func() E { return copyPrefixVisibleMidway{newWatchedES()} }),
		class("delete-execution-visible-midway", "deleteExecution deletes in chunks of ten, one statement each; readers see part of the log", "eventstore/readers-whole-delete-execution", []string{"I-STORE-12", "I-STORE-31"},
			func() E { return deleteExecutionVisibleMidway{newWatchedES()} }),
		class("store-now-seconds-unit", "storeNow is in seconds (refused at MUST level by the unit check)", "eventstore/store-now-unit", []string{"I-STORE-26"},
			func() E { return nowInSeconds{newES()} }),
		class("store-now-micros", "storeNow is in microseconds", "eventstore/store-now-unit", []string{"I-STORE-26"},
			func() E { return nowInMicros{newES()} }),
		class("fence-check-then-write", "a fenced append checks the token, then writes in a second step, so a stale holder's append lands after a newer acquireFence returned and a read saw nothing", "eventstore/fence-race", []string{"S6.fencing.zombie", "I-STORE-6"},
			func() E { return newFenceCheckThenWrite() }),
		class("delimited-prefix-scan", "rows are keyed <id>:<sequence> and read scans the key prefix <id>:, so reading x also returns the log of x:q", "eventstore/ids-apart-every-method", ids,
			func() E { return delimitedScanES{newES(), ":"} }),
		class("delimiters-substituted", "row keys are built by replacing \":\" and \"/\" with \"_\", so a:b, a/b and a_b share one log", "eventstore/ids-apart-every-method", ids,
			func() E { return keyedEverywhere{keyedIDs{newES(), substituteDelimiters}} }),
		class("copy-reencodes", "copyPrefix re-encodes every member through another JSON library: empty arrays become objects, numbers are printed with 14 digits", "eventstore/copy-prefix-values", []string{"I-STORE-11", "I-STORE-3"},
			func() E { return copyReencodes{newES()} }),
		class("int64-integers", "payload and metadata integers are read into int64, so one beyond int64 that a double holds (10^19, 2^63, 2^64) wraps around", "eventstore/roundtrip-values", []string{"I-STORE-3"},
			func() E { return int64Integers{newES()} }),
		class("sequence-before-fence", "the sequence is checked before the fence, so a zombie holding a stale token learns conflict and retries instead of learning it was fenced (breaks only a recommendation)", "eventstore/refusal-order", []string{"I-STORE-50"},
			func() E { return sequenceBeforeFence{newES()} }),
		class("delete-unwritten-keeps-fence", "deleteExecution returns early when no envelope matched, so an id fenced but never written keeps its token and the old worker writes the new incarnation", "eventstore/delete-execution-fences", []string{"I-STORE-82", "S6.fencing.zombie"},
			func() E { return deleteUnwrittenKeepsFence{newES()} }),
		class("copy-onto-trimmed", "copyPrefix takes a target deleteThrough emptied for a fresh one and writes over it (breaks only a recommendation)", "eventstore/copy-prefix-trimmed-target", []string{"I-STORE-52"},
			func() E { return copyOntoTrimmed{newES()} }),
		class("listing-utf16-order", "listExecutionsPage orders ids by UTF-16 code units (Java, JavaScript and .NET string order): characters beyond U+FFFF before U+E000–U+FFFF", "eventstore/list-executions-byte-order", []string{"I-STORE-28"},
			func() E { return listingCollated{newES(), utf16Less} }),
	}
}

// ClassEventStores are the broken EventStores of the rule classes that apply across seams and methods.
func ClassEventStores() []Store[spi.EventStore] { return stores(classEventStores()) }

func allExecutions(ctx context.Context, s es) ([]string, error) {
	var out []string
	cursor := ""
	for {
		p, err := s.ListExecutionsPage(ctx, cursor, 500)
		if err != nil {
			return nil, err
		}
		out = append(out, p.ExecutionIDs...)
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
}
