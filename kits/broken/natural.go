package broken

import (
	"sync"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// The natural-window stores: for every race class (a fence checked then written, a version read
// then written, a delete racing an append, readers racing a write done in parts) on every seam that
// has one, the correct in-memory logic with its lock released between the check and the act, or
// between the parts of one write, for one yield of the processor (runtime.Gosched) and nothing
// more. That is what a real store over a network has — one round trip between a client-side check
// and the write — without a window held open for the checks, so the rate at which a check rejects
// them (make seed-rate, docs/performance.md "Race detection on natural windows") is the rate a
// racy store of that class meets in the field, under whatever load the machine carries.

// natural names a natural-window store after the held-window store of its class.
func natural(held string) string { return held + "-natural" }

const naturalDefect = " (natural window: the lock is released for one yield between the two steps, nothing held open)"

func naturalEventStores() []classStore[spi.EventStore] {
	type E = spi.EventStore
	return []classStore[E]{
		class(natural("fence-check-then-write"), "a fenced append checks the token, then writes in a second step, so a stale holder's append lands after a newer acquireFence returned"+naturalDefect,
			"eventstore/fence-race", []string{"S6.fencing.zombie", "I-STORE-6"},
			func() E { return fenceCheckThenWrite{newFenced(&fenceBook{}), naturalWindow()} }),
		class(natural("fence-token-reused"), "acquireFence reads the current token, then writes the next one, so racing acquires issue the same token"+naturalDefect,
			"eventstore/fence-monotonic", []string{"I-STORE-6"},
			func() E { return newFenced(&fenceBook{racy: true, natural: true}) }),
		class(natural("fence-if-race-both-win"), "acquireFenceIf compares, then writes, so racing calls with one expectation can both win"+naturalDefect,
			"eventstore/fence-if-race", []string{"I-STORE-7"},
			func() E { return newFenced(&fenceBook{racy: true, natural: true}) }),
		class(natural("lost-concurrent-append"), "an append reads the head, compares its first sequence, then writes, so racing appends at one sequence both win and one is lost"+naturalDefect,
			"eventstore/append-concurrent-one-wins", []string{"I-STORE-1"},
			func() E { return checkThenAct{newES(), &sync.Mutex{}, true} }),
		class(natural("delete-through-eats-concurrent"), "deleteThrough reads the head, then deletes through it moved by what landed meanwhile, so an append racing it is deleted"+naturalDefect,
			"eventstore/delete-through-concurrent", []string{"S7.es.delete-through-concurrent"},
			func() E { return throughRace{newES(), true} }),
		class(natural("append-visible-midway"), "a batch is checked whole, then inserted one envelope per statement without a transaction; readers can see part of it"+naturalDefect,
			"eventstore/readers-whole-append", []string{"I-STORE-2", "I-STORE-31"},
			func() E { return appendVisibleMidway{watchedES{newES(), naturalWindow()}, &sync.Mutex{}} }),
		class(natural("delete-through-visible-midway"), "deleteThrough deletes one sequence per statement; readers can see a partly deleted prefix"+naturalDefect,
			"eventstore/readers-whole-delete-through", []string{"S7.es.delete-through-atomic", "I-STORE-31"},
			func() E { return deleteThroughVisibleMidway{watchedES{newES(), naturalWindow()}} }),
		class(natural("copy-prefix-visible-midway"), "copyPrefix copies in chunks of ten, one statement each; readers of the target can see part of the prefix"+naturalDefect,
			"eventstore/readers-whole-copy-prefix", []string{"I-STORE-11", "I-STORE-31"},
			func() E { return copyPrefixVisibleMidway{watchedES{newES(), naturalWindow()}} }),
		class(natural("delete-execution-visible-midway"), "deleteExecution deletes in chunks of ten, one statement each; readers can see part of the log"+naturalDefect,
			"eventstore/readers-whole-delete-execution", []string{"I-STORE-12", "I-STORE-31"},
			func() E { return deleteExecutionVisibleMidway{watchedES{newES(), naturalWindow()}} }),
	}
}

func naturalSnapshotStores() []classStore[spi.SnapshotStore] {
	type S = spi.SnapshotStore
	return []classStore[S]{
		class(natural("latest-pointer-race"), "save compares the latest pointer, then moves it, so racing saves can leave a lower snapshot latest"+naturalDefect,
			"snapshotstore/concurrent-saves", []string{"I-STORE-15", "I-STORE-14"},
			func() S { return latestPointerRace{newSS(), &sync.Mutex{}, map[string]spi.Snapshot{}, true} }),
		class(natural("save-delete-then-insert"), "a save at a taken sequence deletes the old snapshot, then inserts the new one; readers can see an older latest"+naturalDefect,
			"snapshotstore/readers-whole-save", []string{"I-STORE-15", "I-STORE-31"},
			func() S { return saveDeleteThenInsert{watchedSS{newSS(), naturalWindow()}} }),
	}
}

func naturalArchiveStores() []classStore[spi.ArchiveStore] {
	type A = spi.ArchiveStore
	return []classStore[A]{
		class(natural("archive-race"), "an archive call compares the archived envelopes, then inserts, so racing archivers of different envelopes both win"+naturalDefect,
			"archivestore/concurrent-archivers", []string{"I-STORE-18", "I-STORE-14"},
			func() A { return archiveRace{newAS(), &sync.Mutex{}, map[string]map[int64]spi.Envelope{}, true} }),
		class(natural("archive-append-visible-midway"), "an archive call is checked whole, then inserted one envelope per statement; readers can see part of it"+naturalDefect,
			"archivestore/readers-whole-append", []string{"I-STORE-18", "I-STORE-31"},
			func() A { return archiveAppendVisibleMidway{watchedAS{newAS(), naturalWindow()}, &sync.Mutex{}} }),
		class(natural("replace-visible-midway"), "replaceSegments deletes the range, then inserts the new envelopes, without a transaction"+naturalDefect,
			"archivestore/readers-whole-replace", []string{"I-STORE-19", "I-STORE-31"},
			func() A { return replaceVisibleMidway{watchedAS{newAS(), naturalWindow()}} }),
	}
}

func naturalBranchRegistries() []classStore[spi.BranchRegistry] {
	type B = spi.BranchRegistry
	return []classStore[B]{
		class(natural("register-race"), "register looks the id up, then writes, so racing registrations of different branches both win"+naturalDefect,
			"branchregistry/concurrent-register", []string{"I-STORE-20", "I-STORE-14"},
			func() B { return registerRace{newBR(), &sync.Mutex{}, map[string]spi.Branch{}, true} }),
	}
}

func naturalContentStores() []classStore[spi.ContentStore] {
	type C = spi.ContentStore
	return []classStore[C]{
		class(natural("put-race-refused"), "put looks the digest up, then inserts; a put racing another of the same bytes hits the unique key and is refused"+naturalDefect,
			"contentstore/put-idempotent", []string{"I-PLUGIN-1"},
			func() C { return putRaceRefused{newContentTable(), true} }),
		class(natural("content-written-in-parts"), "content is written under its digest in 64 KiB parts, one statement each; readers can see it grow"+naturalDefect,
			"contentstore/readers-whole-content", []string{"I-PLUGIN-2", "I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), naturalWindow(), false} }),
		class(natural("content-rewritten-in-parts"), "a put of content already stored truncates it and writes it again in 64 KiB parts; readers that had it whole can see it torn"+naturalDefect,
			"contentstore/readers-whole-content", []string{"I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), naturalWindow(), true} }),
	}
}

func naturalDurableStateStores() []classStore[spi.DurableStateStore] {
	type D = spi.DurableStateStore
	torn := func(deleteFirst bool) func() D {
		return func() D {
			s := newTornState(deleteFirst)
			s.w = naturalWindow()
			return s
		}
	}
	return []classStore[D]{
		class(natural("lost-update"), "a set on a version reads the version, compares it, then writes, so racing increments overwrite each other"+naturalDefect,
			"durablestatestore/no-lost-update", []string{"I-PLUGIN-5"},
			func() D { return checkThenSet{newDS(), &sync.Mutex{}, true} }),
		class(natural("delete-check-then-delete"), "a delete on a version reads the version, compares it, then deletes, so a set on the same version racing it succeeds and is then deleted"+naturalDefect,
			"durablestatestore/delete-races-set", []string{"I-PLUGIN-5"},
			func() D { return deleteCheckThenDelete{newDS()} }),
		class(natural("set-value-then-version"), "a set writes the value, then the version, in two statements; readers can see a value with the version of the set before"+naturalDefect,
			"durablestatestore/readers-whole-set", []string{"I-PLUGIN-13", "I-PLUGIN-6"}, torn(false)),
		class(natural("set-delete-then-insert"), "a set deletes the key, then inserts the new value, without a transaction; readers can find the key missing"+naturalDefect,
			"durablestatestore/readers-whole-set", []string{"I-PLUGIN-13"}, torn(true)),
	}
}

func naturalReadModelStores() []classStore[spi.ReadModelStore] {
	type R = spi.ReadModelStore
	return []classStore[R]{
		class(natural("upsert-delete-then-insert"), "an upsert deletes the document, then inserts the new one, without a transaction; readers can miss it"+naturalDefect,
			"readmodelstore/readers-whole-upsert", []string{"I-PLUGIN-13", "I-PLUGIN-10"},
			func() R { return upsertDeleteThenInsert{newTable(), naturalWindow()} }),
	}
}

// NaturalEventStores and its siblings are the natural-window stores of each seam.
func NaturalEventStores() []Store[spi.EventStore] { return stores(naturalEventStores()) }

// NaturalSnapshotStores are the natural-window SnapshotStores.
func NaturalSnapshotStores() []Store[spi.SnapshotStore] { return stores(naturalSnapshotStores()) }

// NaturalArchiveStores are the natural-window ArchiveStores.
func NaturalArchiveStores() []Store[spi.ArchiveStore] { return stores(naturalArchiveStores()) }

// NaturalBranchRegistries are the natural-window BranchRegistries.
func NaturalBranchRegistries() []Store[spi.BranchRegistry] { return stores(naturalBranchRegistries()) }

// NaturalContentStores are the natural-window ContentStores.
func NaturalContentStores() []Store[spi.ContentStore] { return stores(naturalContentStores()) }

// NaturalDurableStateStores are the natural-window DurableStateStores.
func NaturalDurableStateStores() []Store[spi.DurableStateStore] {
	return stores(naturalDurableStateStores())
}

// NaturalReadModelStores are the natural-window ReadModelStores.
func NaturalReadModelStores() []Store[spi.ReadModelStore] { return stores(naturalReadModelStores()) }

// naturalProof is the test that proves every natural-window store rejected on fixed seeds.
const naturalProof = "kits/broken:TestNaturalWindowsRejected"

// NaturalMutants registers the natural-window stores as mutants, each with the clauses it
// violates and the check that must reject it.
func NaturalMutants() []spec.Mutant {
	var out []spec.Mutant
	out = append(out, classMutants("eventstore", naturalProof, naturalEventStores())...)
	out = append(out, classMutants("snapshotstore", naturalProof, naturalSnapshotStores())...)
	out = append(out, classMutants("archivestore", naturalProof, naturalArchiveStores())...)
	out = append(out, classMutants("branchregistry", naturalProof, naturalBranchRegistries())...)
	out = append(out, classMutants("contentstore", naturalProof, naturalContentStores())...)
	out = append(out, classMutants("durablestatestore", naturalProof, naturalDurableStateStores())...)
	out = append(out, classMutants("readmodelstore", naturalProof, naturalReadModelStores())...)
	return out
}

// naturalChecks is the test that proves the natural-window stores rejected: the rate it stands for
// (I-COV-5) and the rules of the races it sees.
func naturalChecks() []spec.Check {
	return []spec.Check{
		{ID: "kits/broken/natural-windows-rejected", Kind: spec.KindTest, Clauses: []string{"I-COV-5", "S6.fencing.zombie", "I-STORE-1", "I-STORE-6", "I-STORE-7", "I-STORE-14", "I-STORE-31", "I-PLUGIN-5", "I-PLUGIN-13"},
			Where: naturalProof},
	}
}
