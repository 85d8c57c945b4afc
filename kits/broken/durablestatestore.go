package broken

import (
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type ds struct{ *memory.DurableStateStore }

func newDS() ds { return ds{memory.NewDurableStateStore()} }

// DurableStateStores are broken DurableStateStores, each with the check that must reject it.
func DurableStateStores() []Store[spi.DurableStateStore] {
	return []Store[spi.DurableStateStore]{
		{"last-write-wins", "the version precondition is ignored", "durablestatestore/conditional-set", func() spi.DurableStateStore { return lastWriteWins{newDS()} }},
		{"lost-update", "check-then-act compare-and-set: racing increments overwrite each other", "durablestatestore/no-lost-update", func() spi.DurableStateStore { return checkThenSet{newDS(), &sync.Mutex{}, paceHeld} }},
		{"create-overwrites", "a create-only set (ifVersion 0) overwrites a present key", "durablestatestore/conditional-set", func() spi.DurableStateStore { return createOverwrites{newDS()} }},
		{"version-restarts", "versions restart at 1 after a delete, so a version read before it matches again (ABA)", "durablestatestore/versions-not-reused", func() spi.DurableStateStore {
			return versionRestarts{&sync.Mutex{}, map[string]spi.StateEntry{}}
		}},
		{"delete-ignores-condition", "a conditional delete on a stale version deletes", "durablestatestore/delete", func() spi.DurableStateStore { return deleteIgnoresCondition{newDS()} }},
		{"conflict-still-writes", "a refused conditional set reports the conflict but writes the value", "durablestatestore/conditional-set", func() spi.DurableStateStore {
			return conflictStillWrites{newDS(), &sync.Mutex{}}
		}},
		{"lossy-numbers", "values pass through float64", "durablestatestore/roundtrip-precision", func() spi.DurableStateStore { return lossyDurable{newDS()} }},
		{"case-folded-keys", "keys are folded to lower case, so keys differing by case share a value", "durablestatestore/key-isolation", func() spi.DurableStateStore { return dsKeyedOn{newDS(), "", lowerCase} }},
		{"null-for-absent", "get of an absent key returns null at version 0 and no error", "durablestatestore/get-unknown", func() spi.DurableStateStore { return nullForAbsent{newDS()} }},
		{"accepts-invalid", "an empty key and non-JSON values are accepted", "durablestatestore/invalid", func() spi.DurableStateStore { return acceptsInvalid{newDS()} }},
		{"stale-version-returned", "set returns the version before the write, not the new one", "durablestatestore/set-get", func() spi.DurableStateStore { return staleVersionReturned{newDS()} }},
		{"delete-absent-not-found", "an unconditional delete of an absent key answers not found (breaks only a recommendation)", "durablestatestore/delete-absent", func() spi.DurableStateStore { return deleteAbsentStateNotFound{newDS()} }},
	}
}

func classDurableStateStores() []classStore[spi.DurableStateStore] {
	type D = spi.DurableStateStore
	keys := []string{"I-PLUGIN-14", "I-PLUGIN-7"}
	return []classStore[D]{
		class("delete-folds-case", "delete matches keys case-insensitively, deleting every key that differs only by case", "durablestatestore/keys-apart-every-method", keys,
			func() D { return deleteFoldsCaseDS{newDS(), &keyIndex{keys: map[string]bool{}}} }),
		class("create-check-folds-case", "a create-only set looks for a present key case-insensitively, so a key differing only by case blocks it", "durablestatestore/keys-apart-every-method", append(keys, "I-PLUGIN-5"),
			func() D { return createCheckFoldsCase{newDS(), &keyIndex{keys: map[string]bool{}}} }),
		class("conditional-delete-normalises", "a delete on a version finds its key NFC-normalised (the one statement with another collation), so it checks and removes the key in the other normal form", "durablestatestore/keys-apart-every-method", append(keys, "I-PLUGIN-5"),
			func() D { return dsKeyedOn{newDS(), "delete-if", composeAcute} }),
		class("unconditional-set-trims", "an unconditional set drops trailing spaces of its key, so it writes the key without them", "durablestatestore/keys-apart-every-method", keys,
			func() D { return dsKeyedOn{newDS(), "set", trimTrailing} }),
		class("versioned-set-folds-case", "a set on a version (create-only included) looks its key up lower-cased, so it checks and writes another key's version", "durablestatestore/keys-apart-every-method", append(keys, "I-PLUGIN-5"),
			func() D { return dsKeyedOn{newDS(), "set-if", lowerCase} }),
		class("get-folds-case", "get reads its key lower-cased, so it returns another key's value", "durablestatestore/keys-apart-every-method", keys,
			func() D { return dsKeyedOn{newDS(), "get", lowerCase} }),
		class("unconditional-delete-trims", "an unconditional delete drops trailing spaces of its key, so it deletes the key without them", "durablestatestore/keys-apart-every-method", keys,
			func() D { return dsKeyedOn{newDS(), "delete", trimTrailing} }),
		class("keys-cut-255", "keys are cut to 255 bytes (a VARCHAR(255) key column), so two long keys that share their first 255 bytes are one key", "durablestatestore/keys-apart-every-method", append(keys, "I-STORE-80"),
			func() D { return dsKeyedOn{newDS(), "", trunc} }),
		class("keys-delimiters-substituted", "key names are built by replacing \":\" and \"/\" with \"_\", so a:b, a/b and a_b are one key", "durablestatestore/keys-apart-every-method", keys,
			func() D { return dsKeyedOn{newDS(), "", substituteDelimiters} }),
		class("tombstone-versions", "a deleted key keeps its last version as a tombstone, so a set on the version read before the delete is applied after it", "durablestatestore/version-across-delete", []string{"I-PLUGIN-5"},
			func() D { return tombstoneVersions{newDS(), &sync.Mutex{}, map[string]int64{}} }),
		class("int64-values", "integers are read into int64, so one beyond int64 that a double holds (10^19, 2^63, 2^64) wraps around", "durablestatestore/roundtrip-values", []string{"I-PLUGIN-7"},
			func() D { return int64Values{newDS()} }),
		class("conflict-before-argument", "a set compares its version condition before it looks at the key, so a set with an empty key on a version is a conflict (breaks only a recommendation)", "durablestatestore/refusal-order", []string{"I-STORE-56"},
			func() D { return conflictBeforeArgument{newDS()} }),
		class("set-skips-float-equal", "a set whose value equals the stored one through float64 is skipped as unchanged and returns the old version", "durablestatestore/set-never-skipped", []string{"I-PLUGIN-15", "I-PLUGIN-6"},
			func() D { return setSkipsFloatEqual{newDS()} }),
		class("set-merges-objects", "a set of an object merges its keys into the stored object (jsonb ||)", "durablestatestore/set-replaces-whole", []string{"I-PLUGIN-15", "I-PLUGIN-7"},
			func() D { return setMergesObjects{newDS(), &sync.Mutex{}} }),
		class("set-value-then-version", "a set writes the value, then the version, in two statements; readers see a value with the version of the set before", "durablestatestore/readers-whole-set", []string{"I-PLUGIN-13", "I-PLUGIN-6"},
			func() D { return newTornState(false) }),
		class("set-delete-then-insert", "a set deletes the key, then inserts the new value, without a transaction; readers find the key missing", "durablestatestore/readers-whole-set", []string{"I-PLUGIN-13"},
			func() D { return newTornState(true) }),
	}
}

// keyIndex remembers the keys a store holds, for broken stores that look keys up by a collation.
type keyIndex struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (x *keyIndex) set(k string, present bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if present {
		x.keys[k] = true
	} else {
		delete(x.keys, k)
	}
}

// folded returns the held keys equal to k under case folding.
func (x *keyIndex) folded(k string) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for h := range x.keys {
		if strings.EqualFold(h, k) {
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

// ClassDurableStateStores are the broken DurableStateStores of the rule classes that apply across seams and methods.
func ClassDurableStateStores() []Store[spi.DurableStateStore] {
	return stores(classDurableStateStores())
}
