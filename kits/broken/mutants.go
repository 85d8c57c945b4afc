package broken

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
)

// classStore is one broken store of a rule class that applies across seams and methods (ids on
// every method, names holding delimiters, byte-order listings, equality by value, refusals after
// valid items, atomicity seen by readers, whole-record replacement, the storeNow unit, fence
// races), registered with the clause ids it violates. The per-rule stores of EventStores() and its
// siblings are registered through violates instead (and certify serves them behind a bridge).
type classStore[T any] struct {
	Store[T]
	Clauses []string
}

func class[T any](name, defect, catch string, clauses []string, mk func() T) classStore[T] {
	return classStore[T]{Store[T]{Name: name, Defect: defect, Catch: catch, New: mk}, clauses}
}

func stores[T any](gs []classStore[T]) []Store[T] {
	out := make([]Store[T], len(gs))
	for i, x := range gs {
		out[i] = x.Store
	}
	return out
}

func classMutants[T any](seam, where string, gs []classStore[T]) []spec.Mutant {
	out := make([]spec.Mutant, len(gs))
	for i, x := range gs {
		out[i] = spec.Mutant{ID: MutantID(seam, x.Name), Kind: "store", Defect: x.Defect,
			Clauses: append([]string(nil), x.Clauses...), CaughtBy: []string{x.Catch}, Where: where}
	}
	return out
}

// ClassMutants registers the broken stores of the rule classes as mutants; each is
// proven rejected by TestClass<Seam>Rejected.
func ClassMutants() []spec.Mutant {
	var out []spec.Mutant
	out = append(out, classMutants("eventstore", "kits/broken:TestClassEventStoresRejected", classEventStores())...)
	out = append(out, classMutants("snapshotstore", "kits/broken:TestClassSnapshotStoresRejected", classSnapshotStores())...)
	out = append(out, classMutants("archivestore", "kits/broken:TestClassArchiveStoresRejected", classArchiveStores())...)
	out = append(out, classMutants("branchregistry", "kits/broken:TestClassBranchRegistriesRejected", classBranchRegistries())...)
	out = append(out, classMutants("contentstore", "kits/broken:TestClassContentStoresRejected", classContentStores())...)
	out = append(out, classMutants("durablestatestore", "kits/broken:TestClassDurableStateStoresRejected", classDurableStateStores())...)
	out = append(out, classMutants("readmodelstore", "kits/broken:TestClassReadModelStoresRejected", classReadModelStores())...)
	return append(out, NaturalMutants()...)
}

// violates names, per broken store ("<seam>/<name>"), every clause its defect breaks — not only
// the clauses of the check that catches it. A store missing here is reported by Mutants' tests.
var violates = map[string][]string{
	"eventstore/off-by-one-read-range":           {"I-STORE-5"},
	"eventstore/non-atomic-batch":                {"I-STORE-2", "I-STORE-1"},
	"eventstore/overwrite-stale":                 {"I-STORE-1"},
	"eventstore/lost-concurrent-append":          {"I-STORE-1", "I-STORE-14"},
	"eventstore/torn-on-cancel":                  {"I-STORE-2"},
	"eventstore/lands-after-cancel":              {"I-STORE-2"},
	"eventstore/lossy-numbers":                   {"I-STORE-25"},
	"eventstore/dropped-metadata":                {"I-STORE-3", "S4.envelope.shape"},
	"eventstore/prefix-leak":                     {"I-STORE-4"},
	"eventstore/truncated-ids":                   {"I-STORE-4"},
	"eventstore/stale-read-under-load":           {"I-STORE-14"},
	"eventstore/stale-fence-accepted":            {"S6.fencing.zombie", "I-STORE-6"},
	"eventstore/stale-fence-accepted-concurrent": {"S6.fencing.zombie", "I-STORE-6"},
	"eventstore/fence-token-reused":              {"I-STORE-6", "S6.fencing.zombie"},
	"eventstore/fence-tokens-descending":         {"I-STORE-100"},
	"eventstore/fence-if-unconditional":          {"I-STORE-7"},
	"eventstore/anchor-ignored":                  {"I-STORE-8"},
	"eventstore/incarnation-anchor-reused":       {"S7.es.incarnation-anchor"},
	"eventstore/store-now-seconds":               {"I-STORE-9", "S7.es.store-now", "I-STORE-26"},
	"eventstore/delete-through-keeps-seq0":       {"S7.es.delete-through-atomic"},
	"eventstore/delete-through-past-through":     {"S7.es.delete-through-atomic", "S7.es.delete-through-concurrent", "I-STORE-10"},
	"eventstore/delete-through-eats-concurrent":  {"S7.es.delete-through-concurrent"},
	"eventstore/copy-prefix-one-more":            {"I-STORE-11"},
	"eventstore/delete-keeps-head":               {"I-STORE-12"},
	"eventstore/offset-cursor":                   {"I-STORE-13"},
	"eventstore/unbounded-page":                  {"I-STORE-13", "S7.es.list-executions-page"},
	"eventstore/malformed-sealing":               {"I-STORE-22"},
	"eventstore/future-claim":                    {"S7.spi.semver", "I-STORE-21"},
	"eventstore/unsupported-everything":          {"I-STORE-24", "I-STORE-3"},
	"eventstore/fence-says-unsupported":          {"I-STORE-24", "S6.fencing.zombie", "I-STORE-6"},
	"eventstore/if-unchanged-ignores-fence":      {"S6.fencing.zombie", "I-STORE-6", "I-STORE-8"},
	"eventstore/global-anchor":                   {"I-STORE-8", "I-STORE-4"},
	"eventstore/commit-then-report-cancel":       {"I-STORE-2"},
	"eventstore/case-insensitive-ids":            {"I-STORE-4"},
	"eventstore/trimmed-ids":                     {"I-STORE-4"},
	"eventstore/normalised-ids":                  {"I-STORE-4"},
	"eventstore/lists-deleted":                   {"I-STORE-13", "I-STORE-69"},
	"eventstore/small-payloads":                  {"I-STORE-3", "S4.envelope.shape"},
	"eventstore/quarantine-streams-merged":       {"S7.es.quarantine-prefix-reserved", "I-STORE-4"},
	"eventstore/negative-from-reads-all":         {"I-STORE-66"},
	"eventstore/unfenced-refused":                {"I-STORE-67"},
	"eventstore/negative-through-noop":           {"I-STORE-68"},
	"eventstore/delete-absent-not-found":         {"I-STORE-71"},
	"snapshotstore/prune-inverted-noop":          {"I-STORE-66"},
	"archivestore/archive-equal-conflict":        {"I-STORE-70"},
	"durablestatestore/delete-absent-not-found":  {"I-PLUGIN-18"},
	"branchregistry/register-equal-exists":       {"I-STORE-72"},
	"eventstore/incarnation-in-events":           {"S7.es.incarnation-metadata-only"},
	"snapshotstore/latest-off-by-one":            {"I-STORE-15"},
	"snapshotstore/latest-off-by-one-fold":       {"I-STORE-15"},
	"snapshotstore/first-write-wins":             {"I-STORE-15"},
	"snapshotstore/lossy-state":                  {"I-STORE-25"},
	"snapshotstore/sealed-ignored":               {"I-STORE-16"},
	"snapshotstore/prune-wrong-range":            {"S7.ss.prune-range", "I-STORE-17"},
	"snapshotstore/sequences-descending":         {"S7.ss.list-sequences"},
	"snapshotstore/prune-counts-saves":           {"I-STORE-65"},
	"snapshotstore/delete-all-snapshots":         {"I-STORE-4"},
	"snapshotstore/prefix-scan-snapshots":        {"I-STORE-4"},
	"archivestore/archive-drops-metadata":        {"S7.as.compact-archives-first", "I-STORE-18"},
	"archivestore/archive-duplicates":            {"I-STORE-18"},
	"archivestore/archive-swallows-conflict":     {"I-STORE-18"},
	"archivestore/archive-race":                  {"I-STORE-18", "I-STORE-14"},
	"archivestore/replace-too-much":              {"I-STORE-19"},
	"archivestore/empty-replace-noop":            {"I-STORE-19"},
	"archivestore/prefix-scan-archive":           {"I-STORE-4"},
	"archivestore/lossy-archive":                 {"I-STORE-18"},
	"branchregistry/children-and-grandchildren":  {"I-STORE-20"},
	"branchregistry/register-overwrites":         {"I-STORE-20"},
	"branchregistry/cycles-allowed":              {"I-STORE-20"},
	"branchregistry/register-race":               {"I-STORE-20", "I-STORE-14"},
	"branchregistry/zero-for-unknown":            {"I-STORE-20"},
	"branchregistry/children-like-prefix":        {"I-STORE-20", "I-STORE-4"},
	"branchregistry/lossy-branch-metadata":       {"I-STORE-25"},
	"contentstore/partial-stream-visible":        {"I-PLUGIN-2", "S7.plugin.pinned"},
	"contentstore/stream-swallows-error":         {"I-PLUGIN-2", "S7.plugin.pinned"},
	"contentstore/commits-after-cancel":          {"I-PLUGIN-2", "S7.plugin.pinned"},
	"contentstore/wrong-digest":                  {"I-PLUGIN-1"},
	"contentstore/truncates-large":               {"I-PLUGIN-1"},
	"contentstore/empty-for-unknown":             {"I-PLUGIN-1"},
	"contentstore/malformed-digest-not-found":    {"I-PLUGIN-17"},
	"contentstore/put-twice-refused":             {"I-PLUGIN-1"},
	"contentstore/owner-leak":                    {"I-PLUGIN-3", "S7.plugin.pinned"},
	"contentstore/owner-unowned-fallback":        {"I-PLUGIN-3", "S7.plugin.pinned"},
	"contentstore/owner-prefix":                  {"I-PLUGIN-3"},
	"contentstore/seals-flaps":                   {"I-PLUGIN-4"},
	"contentstore/seals-without-owner":           {"I-PLUGIN-4"},
	"durablestatestore/last-write-wins":          {"I-PLUGIN-5", "S7.plugin.pinned"},
	"durablestatestore/lost-update":              {"I-PLUGIN-5", "S7.plugin.pinned"},
	"durablestatestore/create-overwrites":        {"I-PLUGIN-5"},
	"durablestatestore/version-restarts":         {"I-PLUGIN-6"},
	"durablestatestore/delete-ignores-condition": {"I-PLUGIN-5"},
	"durablestatestore/conflict-still-writes":    {"I-PLUGIN-5"},
	"durablestatestore/lossy-numbers":            {"I-STORE-25"},
	"durablestatestore/case-folded-keys":         {"I-PLUGIN-7"},
	"durablestatestore/null-for-absent":          {"I-PLUGIN-7"},
	"durablestatestore/accepts-invalid":          {"I-PLUGIN-7"},
	"durablestatestore/stale-version-returned":   {"I-PLUGIN-6"},
	"readmodelstore/offset-cursor":               {"I-PLUGIN-9", "S7.plugin.pinned"},
	"readmodelstore/forged-cursor-accepted":      {"I-PLUGIN-9", "S7.plugin.pinned"},
	"readmodelstore/unsigned-cursor":             {"I-PLUGIN-9", "S7.plugin.pinned"},
	"readmodelstore/foreign-cursor-accepted":     {"I-PLUGIN-9", "S7.plugin.pinned"},
	"readmodelstore/inclusive-cursor":            {"I-PLUGIN-9"},
	"readmodelstore/limit-ignored":               {"I-PLUGIN-8", "S7.plugin.pinned"},
	"readmodelstore/limit-clamped":               {"I-PLUGIN-8", "S7.plugin.pinned", "I-PLUGIN-19"},
	"readmodelstore/limit-above-max-accepted":    {"I-PLUGIN-19"},
	"readmodelstore/limit-max-100":               {"I-PLUGIN-19"},
	"readmodelstore/no-next-cursor":              {"I-PLUGIN-9"},
	"readmodelstore/cursor-past-end":             {"I-PLUGIN-9"},
	"readmodelstore/model-prefix":                {"I-PLUGIN-10"},
	"readmodelstore/lossy-numbers":               {"I-STORE-25"},
}

// alsoCaught names, per broken store, the kit checks beyond its Catch that must reject it too:
// one for each clause of violates that Catch is not linked to (I-COV-4), so every clause the
// store is registered as violating is proven by a check about that clause.
var alsoCaught = map[string][]string{
	"eventstore/fence-token-reused":          {"eventstore/linearizable-fenced"},
	"eventstore/global-anchor":               {"eventstore/ids-apart-every-method"},
	"eventstore/lost-concurrent-append":      {"eventstore/linearizable"},
	"eventstore/non-atomic-batch":            {"eventstore/append-conflict"},
	"eventstore/delete-through-past-through": {"eventstore/delete-through-concurrent"},
	"snapshotstore/latest-off-by-one":        {"snapshotstore/equivalence"},
	"snapshotstore/latest-off-by-one-fold":   {"snapshotstore/load-latest"},
	"eventstore/unsupported-everything":      {"eventstore/declared-methods-work"},
	"eventstore/store-now-seconds":           {"eventstore/store-now-unit"},
	"eventstore/fence-says-unsupported":      {"eventstore/declared-methods-work"},
	"eventstore/lists-deleted":               {"eventstore/list-executions-edges"},
	"readmodelstore/limit-clamped":           {"readmodelstore/limit-max"},
}

// Catches is every kit check that must reject the broken store name of seam: its Catch, then
// alsoCaught's.
func Catches(seam, name, catch string) []string {
	return append([]string{catch}, alsoCaught[seam+"/"+name]...)
}

// ProvingTest is the test that runs every broken store against its kit ("kits/broken:<Test>").
func ProvingTest(seam string) string {
	switch seam {
	case "eventstore":
		return "kits/broken:TestBrokenEventStoresRejected"
	case "snapshotstore":
		return "kits/broken:TestBrokenSnapshotStoresRejected"
	case "archivestore":
		return "kits/broken:TestBrokenArchiveStoresRejected"
	case "branchregistry":
		return "kits/broken:TestBrokenBranchRegistriesRejected"
	case "contentstore":
		return "kits/broken:TestBrokenContentStoresRejected"
	case "durablestatestore":
		return "kits/broken:TestBrokenDurableStateStoresRejected"
	case "readmodelstore":
		return "kits/broken:TestBrokenReadModelStoresRejected"
	}
	panic(fmt.Sprintf("broken: unknown seam %q", seam))
}

// MutantID is the registry id of the broken store name of seam: "store/<seam>/<name>".
func MutantID(seam, name string) string { return "store/" + seam + "/" + name }

// Mutants registers every broken store as a spec.Mutant: the clauses its defect violates, the
// kit checks that must reject it, and the test that proves they do.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	add := func(seam, name, defect, catch string) {
		out = append(out, spec.Mutant{ID: MutantID(seam, name), Kind: "store", Defect: defect,
			Clauses: violates[seam+"/"+name], CaughtBy: Catches(seam, name, catch), Where: ProvingTest(seam)})
	}
	for _, s := range EventStores() {
		add("eventstore", s.Name, s.Defect, s.Catch)
	}
	for _, s := range SnapshotStores() {
		add("snapshotstore", s.Name, s.Defect, s.Catch)
	}
	for _, s := range ArchiveStores() {
		add("archivestore", s.Name, s.Defect, s.Catch)
	}
	for _, s := range BranchRegistries() {
		add("branchregistry", s.Name, s.Defect, s.Catch)
	}
	for _, s := range ContentStores() {
		add("contentstore", s.Name, s.Defect, s.Catch)
	}
	for _, s := range DurableStateStores() {
		add("durablestatestore", s.Name, s.Defect, s.Catch)
	}
	for _, s := range ReadModelStores() {
		add("readmodelstore", s.Name, s.Defect, s.Catch)
	}
	return append(out, ClassMutants()...)
}
