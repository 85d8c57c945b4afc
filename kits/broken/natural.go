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

// Each natural-window store has a round-trip-window twin (`*-roundtrip`): the same logic, its
// window one request and its answer over loopback TCP (loopback.go) instead of one yield — the
// window of a store whose check is a statement of its own, one database round trip before the
// write. It is wider than a yield and narrower than the pause of a held window: what a store served
// behind the bridge (every call of the checks a round trip itself) is measured against.

// name names a store opened at pace p after the held-window store of its class.
func (p pace) name(held string) string {
	if p == paceRoundTrip {
		return held + "-roundtrip"
	}
	return held + "-natural"
}

// defect says a store's defect and its window.
func (p pace) defect(what string) string {
	if p == paceRoundTrip {
		return what + " (round-trip window: one loopback request and its answer between the two steps, nothing held open)"
	}
	return what + " (natural window: the lock is released for one yield between the two steps, nothing held open)"
}

func naturalEventStores(p pace) []classStore[spi.EventStore] {
	type E = spi.EventStore
	return []classStore[E]{
		class(p.name("fence-check-then-write"), p.defect("a fenced append checks the token, then writes in a second step, so a stale holder's append lands after a newer acquireFence returned"),
			"eventstore/fence-race", []string{"S6.fencing.zombie", "I-STORE-6"},
			func() E { return fenceCheckThenWrite{newFenced(&fenceBook{}), windowAt(p)} }),
		class(p.name("fence-token-reused"), p.defect("acquireFence reads the current token, then writes the next one, so racing acquires issue the same token"),
			"eventstore/fence-monotonic", []string{"I-STORE-6"},
			func() E { return newFenced(&fenceBook{racy: true, pace: p}) }),
		class(p.name("fence-if-race-both-win"), p.defect("acquireFenceIf compares, then writes, so racing calls with one expectation can both win"),
			"eventstore/fence-if-race", []string{"I-STORE-7"},
			func() E { return newFenced(&fenceBook{racy: true, pace: p}) }),
		class(p.name("lost-concurrent-append"), p.defect("an append reads the head, compares its first sequence, then writes, so racing appends at one sequence both win and one is lost"),
			"eventstore/append-concurrent-one-wins", []string{"I-STORE-1"},
			func() E { return checkThenAct{newES(), &sync.Mutex{}, p} }),
		class(p.name("delete-through-eats-concurrent"), p.defect("deleteThrough reads the head, then deletes through it moved by what landed meanwhile, so an append racing it is deleted"),
			"eventstore/delete-through-concurrent", []string{"S7.es.delete-through-concurrent"},
			func() E { return throughRace{newES(), p} }),
		class(p.name("append-visible-midway"), p.defect("a batch is checked whole, then inserted one envelope per statement without a transaction; readers can see part of it"),
			"eventstore/readers-whole-append", []string{"I-STORE-2", "I-STORE-31"},
			func() E { return appendVisibleMidway{watchedES{newES(), windowAt(p)}, &sync.Mutex{}} }),
		class(p.name("delete-through-visible-midway"), p.defect("deleteThrough deletes one sequence per statement; readers can see a partly deleted prefix"),
			"eventstore/readers-whole-delete-through", []string{"S7.es.delete-through-atomic", "I-STORE-31"},
			func() E { return deleteThroughVisibleMidway{watchedES{newES(), windowAt(p)}} }),
		class(p.name("copy-prefix-visible-midway"), p.defect("copyPrefix copies in chunks of ten, one statement each; readers of the target can see part of the prefix"),
			"eventstore/readers-whole-copy-prefix", []string{"I-STORE-11", "I-STORE-31"},
			func() E { return copyPrefixVisibleMidway{watchedES{newES(), windowAt(p)}} }),
		class(p.name("delete-execution-visible-midway"), p.defect("deleteExecution deletes in chunks of ten, one statement each; readers can see part of the log"),
			"eventstore/readers-whole-delete-execution", []string{"I-STORE-12", "I-STORE-31"},
			func() E { return deleteExecutionVisibleMidway{watchedES{newES(), windowAt(p)}} }),
	}
}

func naturalSnapshotStores(p pace) []classStore[spi.SnapshotStore] {
	type S = spi.SnapshotStore
	return []classStore[S]{
		class(p.name("latest-pointer-race"), p.defect("save compares the latest pointer, then moves it, so racing saves can leave a lower snapshot latest"),
			"snapshotstore/concurrent-saves", []string{"I-STORE-15", "I-STORE-14"},
			func() S { return latestPointerRace{newSS(), &sync.Mutex{}, map[string]spi.Snapshot{}, p} }),
		class(p.name("save-delete-then-insert"), p.defect("a save at a taken sequence deletes the old snapshot, then inserts the new one; readers can see an older latest"),
			"snapshotstore/readers-whole-save", []string{"I-STORE-15", "I-STORE-31"},
			func() S { return saveDeleteThenInsert{watchedSS{newSS(), windowAt(p)}} }),
	}
}

func naturalArchiveStores(p pace) []classStore[spi.ArchiveStore] {
	type A = spi.ArchiveStore
	return []classStore[A]{
		class(p.name("archive-race"), p.defect("an archive call compares the archived envelopes, then inserts, so racing archivers of different envelopes both win"),
			"archivestore/concurrent-archivers", []string{"I-STORE-18", "I-STORE-14"},
			func() A { return archiveRace{newAS(), &sync.Mutex{}, map[string]map[int64]spi.Envelope{}, p} }),
		class(p.name("archive-append-visible-midway"), p.defect("an archive call is checked whole, then inserted one envelope per statement; readers can see part of it"),
			"archivestore/readers-whole-append", []string{"I-STORE-18", "I-STORE-31"},
			func() A { return archiveAppendVisibleMidway{watchedAS{newAS(), windowAt(p)}, &sync.Mutex{}} }),
		class(p.name("replace-visible-midway"), p.defect("replaceSegments deletes the range, then inserts the new envelopes, without a transaction"),
			"archivestore/readers-whole-replace", []string{"I-STORE-19", "I-STORE-31"},
			func() A { return replaceVisibleMidway{watchedAS{newAS(), windowAt(p)}} }),
	}
}

func naturalBranchRegistries(p pace) []classStore[spi.BranchRegistry] {
	type B = spi.BranchRegistry
	return []classStore[B]{
		class(p.name("register-race"), p.defect("register looks the id up, then writes, so racing registrations of different branches both win"),
			"branchregistry/concurrent-register", []string{"I-STORE-20", "I-STORE-14"},
			func() B { return registerRace{newBR(), &sync.Mutex{}, map[string]spi.Branch{}, p} }),
	}
}

func naturalContentStores(p pace) []classStore[spi.ContentStore] {
	type C = spi.ContentStore
	return []classStore[C]{
		class(p.name("put-race-refused"), p.defect("put looks the digest up, then inserts; a put racing another of the same bytes hits the unique key and is refused"),
			"contentstore/put-idempotent", []string{"I-PLUGIN-1"},
			func() C { return putRaceRefused{newContentTable(), p} }),
		class(p.name("content-written-in-parts"), p.defect("content is written under its digest in 64 KiB parts, one statement each; readers can see it grow"),
			"contentstore/readers-whole-content", []string{"I-PLUGIN-2", "I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), windowAt(p), false} }),
		class(p.name("content-rewritten-in-parts"), p.defect("a put of content already stored truncates it and writes it again in 64 KiB parts; readers that had it whole can see it torn"),
			"contentstore/readers-whole-content", []string{"I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), windowAt(p), true} }),
	}
}

func naturalDurableStateStores(p pace) []classStore[spi.DurableStateStore] {
	type D = spi.DurableStateStore
	torn := func(deleteFirst bool) func() D {
		return func() D {
			s := newTornState(deleteFirst)
			s.w = windowAt(p)
			return s
		}
	}
	return []classStore[D]{
		class(p.name("lost-update"), p.defect("a set on a version reads the version, compares it, then writes, so racing increments overwrite each other"),
			"durablestatestore/no-lost-update", []string{"I-PLUGIN-5"},
			func() D { return checkThenSet{newDS(), &sync.Mutex{}, p} }),
		class(p.name("delete-check-then-delete"), p.defect("a delete on a version reads the version, compares it, then deletes, so a set on the same version racing it succeeds and is then deleted"),
			"durablestatestore/delete-races-set", []string{"I-PLUGIN-5"},
			func() D { return deleteCheckThenDelete{newDS(), p} }),
		class(p.name("set-value-then-version"), p.defect("a set writes the value, then the version, in two statements; readers can see a value with the version of the set before"),
			"durablestatestore/readers-whole-set", []string{"I-PLUGIN-13", "I-PLUGIN-6"}, torn(false)),
		class(p.name("set-delete-then-insert"), p.defect("a set deletes the key, then inserts the new value, without a transaction; readers can find the key missing"),
			"durablestatestore/readers-whole-set", []string{"I-PLUGIN-13"}, torn(true)),
	}
}

func naturalReadModelStores(p pace) []classStore[spi.ReadModelStore] {
	type R = spi.ReadModelStore
	return []classStore[R]{
		class(p.name("upsert-delete-then-insert"), p.defect("an upsert deletes the document, then inserts the new one, without a transaction; readers can miss it"),
			"readmodelstore/readers-whole-upsert", []string{"I-PLUGIN-13", "I-PLUGIN-10"},
			func() R { return upsertDeleteThenInsert{newTable(), windowAt(p)} }),
	}
}

// paces is a seam's natural-window stores, then their round-trip twins.
func paces[T any](of func(pace) []classStore[T]) []classStore[T] {
	return append(of(paceNatural), of(paceRoundTrip)...)
}

// NaturalEventStores and its siblings are the natural-window stores of each seam and their
// round-trip twins.
func NaturalEventStores() []Store[spi.EventStore] { return stores(paces(naturalEventStores)) }

// NaturalSnapshotStores are the natural-window SnapshotStores.
func NaturalSnapshotStores() []Store[spi.SnapshotStore] { return stores(paces(naturalSnapshotStores)) }

// NaturalArchiveStores are the natural-window ArchiveStores.
func NaturalArchiveStores() []Store[spi.ArchiveStore] { return stores(paces(naturalArchiveStores)) }

// NaturalBranchRegistries are the natural-window BranchRegistries.
func NaturalBranchRegistries() []Store[spi.BranchRegistry] {
	return stores(paces(naturalBranchRegistries))
}

// NaturalContentStores are the natural-window ContentStores.
func NaturalContentStores() []Store[spi.ContentStore] { return stores(paces(naturalContentStores)) }

// NaturalDurableStateStores are the natural-window DurableStateStores.
func NaturalDurableStateStores() []Store[spi.DurableStateStore] {
	return stores(paces(naturalDurableStateStores))
}

// NaturalReadModelStores are the natural-window ReadModelStores.
func NaturalReadModelStores() []Store[spi.ReadModelStore] {
	return stores(paces(naturalReadModelStores))
}

// naturalProof is the test that proves every natural-window store rejected on fixed seeds.
const naturalProof = "kits/broken:TestNaturalWindowsRejected"

// NaturalMutants registers the natural-window stores as mutants, each with the clauses it
// violates and the check that must reject it.
func NaturalMutants() []spec.Mutant {
	var out []spec.Mutant
	out = append(out, classMutants("eventstore", naturalProof, paces(naturalEventStores))...)
	out = append(out, classMutants("snapshotstore", naturalProof, paces(naturalSnapshotStores))...)
	out = append(out, classMutants("archivestore", naturalProof, paces(naturalArchiveStores))...)
	out = append(out, classMutants("branchregistry", naturalProof, paces(naturalBranchRegistries))...)
	out = append(out, classMutants("contentstore", naturalProof, paces(naturalContentStores))...)
	out = append(out, classMutants("durablestatestore", naturalProof, paces(naturalDurableStateStores))...)
	out = append(out, classMutants("readmodelstore", naturalProof, paces(naturalReadModelStores))...)
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
