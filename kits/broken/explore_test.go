package broken_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/spec"
)

// exploreMisses are the broken stores the exploration of their seam does not reject, each with
// why: its defect needs concurrency (two clients racing a window), cancellation or the wall clock,
// which a sequential script against the reference cannot show.
var exploreMisses = map[string]string{
	"durablestatestore/set-value-then-version":   "readers racing a set see the gap: needs concurrency, and the durable-state exploration makes no two steps at once (a side names versions in the order it sees them)",
	"durablestatestore/set-delete-then-insert":   "readers racing a set see the gap: needs concurrency, and the durable-state exploration makes no two steps at once (a side names versions in the order it sees them)",
	"contentstore/commits-after-cancel":          "a stream cancelled through its context: needs cancellation mid-stream",
	"eventstore/commit-then-report-cancel":       "a cancelled append: needs cancellation mid-call",
	"eventstore/lands-after-cancel":              "a cancelled append: needs cancellation mid-call",
	"eventstore/torn-on-cancel":                  "a cancelled append: needs cancellation mid-call",
	"eventstore/append-visible-midway":           "readers racing an append see it half done: needs concurrency (the EventStore's exploration makes one step at a time)",
	"eventstore/delete-through-visible-midway":   "readers racing deleteThrough see it half done: needs concurrency",
	"eventstore/delete-execution-visible-midway": "readers racing deleteExecution see it half done: needs concurrency",
	"eventstore/delete-through-eats-concurrent":  "appends landing while deleteThrough runs: needs concurrency",
	"eventstore/stale-read-under-contention":     "a cache answering while appends are in flight: needs concurrency",
	"eventstore/stale-read-under-load":           "a cache answering during an append: needs concurrency",
	"eventstore/delete-unwritten-keeps-fence":    "needs acquireFence, then deleteExecution before any append, then an append with the old token: a walk the generator rarely takes in 40 scripts (eventstore/delete-execution-fences aims at it)",
	"eventstore/fence-check-then-write":          "a fence checked in the client, then the write: a racing acquireFence leaves the log as if the append came first, and only a read made after the fence returned sees the difference (I-COV-5); pairs made at once cannot order it",
	"eventstore/store-now-seconds":               "storeNow's unit: needs the wall clock (storeNow is not explored)",
	"eventstore/store-now-seconds-unit":          "storeNow's unit: needs the wall clock (storeNow is not explored)",
	"eventstore/store-now-micros":                "storeNow's unit: needs the wall clock (storeNow is not explored)",
	"contentstore/seals-flaps":                   "sealsContent is a declaration the reference does not make: not compared (contentstore/seals-content)",
	"contentstore/seals-without-owner":           "sealsContent is a declaration the reference does not make: not compared (contentstore/seals-content)",
	"eventstore/future-claim":                    "a version claim, not an answer: no operation to compare (eventstore/version-claim)",
	"eventstore/malformed-sealing":               "sealingCapability legitimately differs between stores: not compared (eventstore/sealing-capability)",
	"eventstore/copy-onto-trimmed":               "copyPrefix onto an id deleteThrough emptied: the model aligns the choice (I-STORE-52), but the walk seldom makes that copy",
}

// exploreRaces are the broken stores of the seams whose scripts make two steps at once
// (kits/explore_together.go) that only such a pair can show, each with the pair it takes: the
// exploration rejects one when a pair of its script meets the window, so either verdict is right
// (the race checks, sized by make seed-rate, reject each on every seed).
var exploreRaces = map[string]string{
	"snapshotstore/save-delete-then-insert":      "save ∥ loadLatest of one execution, the read landing in the gap",
	"archivestore/archive-append-visible-midway": "append ∥ read of one execution, the read landing midway",
	"archivestore/replace-visible-midway":        "replaceSegments ∥ read of one execution, the read landing midway",
	"readmodelstore/upsert-delete-then-insert":   "upsert ∥ upsert of one document, one landing in the other's gap",
	"contentstore/put-race-refused":              "put ∥ put of the same bytes",
	"contentstore/content-written-in-parts":      "put ∥ get of new content of 64 KiB or more (the corpus holds none: seen by contentstore/readers-whole-content)",
	"contentstore/content-rewritten-in-parts":    "put ∥ get of stored content of 64 KiB or more (the corpus holds none: seen by contentstore/readers-whole-content)",
}

// A natural-window store (a name ending -natural, kits/broken/natural.go) races over one yield
// between two steps of one call: an exploration's script makes one call at a time, so it may pass
// one (the race checks, sized by make seed-rate, reject each); rejecting one is no error either.

// missLimit bounds the exploration of a listed miss: only a held-window store that holds every
// script open reaches it, and its unknown is taken as the miss it is. Every other store must reach
// a verdict, so its limit is long enough for a loaded machine running eight at a time
// (scripts/load.sh 16): a verdict never depends on the machine's speed.
const missLimit, verdictLimit = 10 * time.Second, 2 * time.Minute

// exploredBy runs only the seam's exploration check against every broken store of the seam and
// reports which it rejects: each must be rejected, or listed in exploreMisses. A store whose
// violated clauses are all choices must not be rejected by a required assertion.
func exploredBy[T any](t *testing.T, seam string, kit kits.Kit[T], stores []broken.Store[T]) {
	t.Helper()
	clauses := map[string][]string{}
	for _, m := range broken.Mutants() {
		clauses[m.ID] = m.Clauses
	}
	for _, m := range broken.ClassMutants() {
		clauses[m.ID] = m.Clauses
	}
	var rejected, missed []string
	var rounds []int // the round of each finding (how many scripts it took)
	seen := map[string]bool{}
	var unique []broken.Store[T]
	for _, b := range stores {
		if !seen[b.Name] {
			seen[b.Name] = true
			unique = append(unique, b)
		}
	}
	// The stores are explored eight at a time: most of the time goes to the windows the held-window
	// stores hold open, not to the processor, and each store is a store of its own.
	type outcome struct {
		results []kits.Result
		err     error
	}
	outcomes := make([]outcome, len(unique))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, b := range unique {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			limit := verdictLimit
			if _, listed := exploreMisses[seam+"/"+b.Name]; listed || exploreRaces[seam+"/"+b.Name] != "" || strings.HasSuffix(b.Name, "-natural") {
				limit = missLimit
			}
			rs, err := kits.Run(context.Background(), kit, b.Factory(), kits.Options{Run: "^" + seam + "/explore$", Timeout: limit, Seed: 7})
			outcomes[i] = outcome{rs, err}
		}()
	}
	wg.Wait()
	for i, b := range unique {
		results, err := outcomes[i].results, outcomes[i].err
		if err != nil || len(results) != 1 {
			t.Fatalf("Run(%s/explore) = %d results, %v", seam, len(results), err)
		}
		r := results[0]
		key := seam + "/" + b.Name
		violated := clauses[broken.MutantID(seam, b.Name)]
		choiceOnly := len(violated) > 0 && spec.RequirementOf(violated) == spec.Recommended
		switch {
		case r.Verdict == kits.Fail:
			rejected = append(rejected, b.Name)
			if choiceOnly && r.Requirement == spec.Required {
				t.Errorf("%s (%s) violates only choices %v, but the exploration rejects it with a required assertion: %s", key, b.Defect, violated, firstLine(r.Message))
			}
			if r.Finding == nil {
				t.Errorf("%s: the exploration failed without a finding: %s", key, firstLine(r.Message))
			} else {
				rounds = append(rounds, r.Finding.Script.Round)
			}
			if _, listed := exploreMisses[key]; listed {
				t.Errorf("%s is listed as missed (%s) but the exploration rejects it: drop it from exploreMisses", key, exploreMisses[key])
			}
		case r.Verdict == kits.Pass:
			missed = append(missed, b.Name)
			if _, listed := exploreMisses[key]; !listed && exploreRaces[key] == "" && !strings.HasSuffix(b.Name, "-natural") {
				t.Errorf("%s (%s, violates %v): the exploration passed it, want it rejected", key, b.Defect, violated)
			}
		case exploreMisses[key] != "" || exploreRaces[key] != "" || strings.HasSuffix(b.Name, "-natural"):
			missed = append(missed, b.Name) // a held-open window may outlast the time limit
		default:
			t.Errorf("%s: verdict %s, want fail or pass: %s", key, r.Verdict, firstLine(r.Message))
		}
	}
	sort.Strings(rejected)
	sort.Strings(missed)
	sort.Ints(rounds)
	median := -1
	if len(rounds) > 0 {
		median = rounds[len(rounds)/2]
	}
	t.Logf("%s/explore rejects %d of %d broken stores (finding in round %v, median %d); missed: %s", seam, len(rejected), len(rejected)+len(missed), rounds, median, strings.Join(missed, ", "))
}

func TestExploreSnapshotStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "snapshotstore", kits.SnapshotStoreKit(), append(broken.SnapshotStores(), broken.ClassSnapshotStores()...))
}

func TestExploreDurableStateStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "durablestatestore", kits.DurableStateStoreKit(), append(broken.DurableStateStores(), broken.ClassDurableStateStores()...))
}

func TestExploreBranchRegistries(t *testing.T) {
	t.Parallel()
	exploredBy(t, "branchregistry", kits.BranchRegistryKit(), append(broken.BranchRegistries(), broken.ClassBranchRegistries()...))
}

func TestExploreArchiveStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "archivestore", kits.ArchiveStoreKit(), append(broken.ArchiveStores(), broken.ClassArchiveStores()...))
}

func TestExploreReadModelStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "readmodelstore", kits.ReadModelStoreKit(), append(broken.ReadModelStores(), broken.ClassReadModelStores()...))
}

func TestExploreContentStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "contentstore", kits.ContentStoreKit(), append(broken.ContentStores(), broken.ClassContentStores()...))
}

func TestExploreEventStores(t *testing.T) {
	t.Parallel()
	exploredBy(t, "eventstore", kits.EventStoreKit(), append(broken.EventStores(), broken.ClassEventStores()...))
}
