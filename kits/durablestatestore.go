package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// DurableStateStoreCase is what a DurableStateStore check runs against.
type DurableStateStoreCase = Case[spi.DurableStateStore]

// DurableStateStoreKit is the DurableStateStore conformance kit (spec §7, plugin tier).
func DurableStateStoreKit() Kit[spi.DurableStateStore] {
	type C = Check[spi.DurableStateStore]
	return Kit[spi.DurableStateStore]{Name: "durablestatestore", Seam: manifest.SeamDurableStateStore, Checks: []C{
		{ID: "durablestatestore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *DurableStateStoreCase) error {
				return versionClaim(c, manifest.SeamDurableStateStore)
			}},
		{ID: "durablestatestore/set-get", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-7", "I-PLUGIN-6"}, Level: spec.Must,
			Doc: "set then get returns the value by JSON value (objects, arrays, scalars, unicode, 256 KiB) with the version set returned; each write raises the version", Run: dsSetGet},
		{ID: "durablestatestore/roundtrip-values", Clauses: []string{"I-PLUGIN-7"}, Level: spec.Must,
			Doc: "every value of the round-trip corpus (unicode, escapes, integers beyond int64 a double holds, 16-digit fractions, empty containers, scalars, deep nesting), set unconditionally and on its version, reads back as the same JSON value", Run: dsRoundtripValues},
		{ID: "durablestatestore/roundtrip-precision", Clauses: []string{"I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold read back exactly, also after a set of a value differing from the stored one only in such a number", Run: dsPrecision},
		{ID: "durablestatestore/get-unknown", Clauses: []string{"I-PLUGIN-7"}, Level: spec.Must,
			Doc: "get of a key never set is not-found", Run: dsGetUnknown},
		{ID: "durablestatestore/conditional-set", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "a set on a stale version, or create-only on a present key, is a conflict and changes nothing; on the current version it lands", Run: dsConditionalSet},
		{ID: "durablestatestore/no-lost-update", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "racing read-modify-write increments under compare-and-set lose no update", Run: dsNoLostUpdate},
		{ID: "durablestatestore/delete-races-set", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "five sets and a delete racing on the version a key has, the first set sent with the delete and the others 25 µs apart: exactly one wins, and the key then holds the winning set's value or is gone (384 rounds)", Run: dsDeleteRacesSet},
		{ID: "durablestatestore/delete", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-6", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "delete removes the key; a conditional delete on a stale version is a conflict and keeps it", Run: dsDelete},
		{ID: "durablestatestore/delete-absent", Clauses: []string{"I-PLUGIN-18"}, Level: spec.Must,
			Doc: "an unconditional delete of a key never set, or deleted already, succeeds and changes nothing; our choice, so recommended", Run: dsDeleteAbsent},
		{ID: "durablestatestore/versions-not-reused", Clauses: []string{"I-PLUGIN-6", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "after delete and re-create the version is above every earlier one, so a version read before the delete never matches", Run: dsVersionsNotReused},
		{ID: "durablestatestore/version-across-delete", Clauses: []string{"I-PLUGIN-5", "I-PLUGIN-6"}, Level: spec.Must,
			Doc: "a set or delete on the version read before a delete is a conflict after it and changes nothing; the key is absent until a create-only set", Run: dsVersionAcrossDelete},
		{ID: "durablestatestore/refusal-order", Clauses: []string{"I-STORE-56"}, Level: spec.Must,
			Doc: "a write with an empty key or a negative version is invalid even when its version condition does not hold, and changes nothing; our choice, so recommended", Run: dsRefusalOrder},
		{ID: "durablestatestore/key-isolation", Clauses: []string{"I-PLUGIN-7", "I-STORE-4"}, Level: spec.Must,
			Doc: "keys that extend one another or differ only by case, trailing space or normal form are different keys", Run: dsKeys},
		{ID: "durablestatestore/invalid", Clauses: []string{"I-PLUGIN-5", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "an empty key, a value that is not JSON and a negative expected version are invalid arguments and change nothing", Run: dsInvalid},
		{ID: "durablestatestore/keys-apart-every-method", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-7", "I-PLUGIN-5", "I-STORE-4", "I-STORE-80"}, Level: spec.Must,
			Doc: "get, set (create-only, unconditional, on a version, stale) and delete (conditional, stale, unconditional) keep keys apart that differ only by case, trailing space or normal form, or extend one another (also after : / . | _ - blank %), or differ by one delimiter swapped for another or for its escape, or are 1 024 bytes long and differ only in their last byte, each key of a pair worked while the other holds a value; get of the empty key returns no value", Run: dsKeysEveryMethod},
		{ID: "durablestatestore/set-never-skipped", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-6", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "setting the value already stored, byte for byte or in another JSON spelling, still raises the version and reads back as that value", Run: dsSetNeverSkipped},
		{ID: "durablestatestore/set-replaces-whole", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "a set replaces the whole value: keys the new object lacks are gone, nested objects are not merged, also on a conditional set", Run: dsSetReplacesWhole},
		{ID: "durablestatestore/explore", Clauses: dsExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of sets, conditional sets (on the current version, on one from before a delete, on none), deletes and re-creates, and gets, over keys that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with values from the round-trip corpus (U+0000 aside) and integers around 2^53 and 2^64, answer as the in-memory reference does, versions compared by the order they were first seen and each above every earlier version of its key (the first difference is shrunk to a minimal script)", Run: dsExplore().run},
		{ID: "durablestatestore/readers-whole-set", Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-6"}, Level: spec.Must,
			Doc: "readers racing sets of a key that exists throughout always find it, with the value and version of one set, versions never going back (sees a torn set visible for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: dsReadersWholeSet},
	}}
}

// CheckDurableStateStore runs the DurableStateStore kit and returns errors.Join of every failure and unknown.
func CheckDurableStateStore(ctx context.Context, factory Factory[spi.DurableStateStore], opts Options) error {
	results, err := Run(ctx, DurableStateStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func dsSet(ctx context.Context, c *DurableStateStoreCase, key, value string, pre spi.Precondition) (int64, error) {
	v, err := c.Store.Set(ctx, key, json.RawMessage(value), pre)
	if err != nil {
		return 0, c.Failf("Set", fmt.Sprintf("%q, %s%s", key, clipS(value), preArg(pre)), err, "nil")
	}
	return v, nil
}

func preArg(p spi.Precondition) string {
	if p.IfVersion == nil {
		return ""
	}
	return fmt.Sprintf(", ifVersion %d", *p.IfVersion)
}

func dsExpect(ctx context.Context, c *DurableStateStoreCase, key, value string, version int64, after string) error {
	got, err := c.Store.Get(ctx, key)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%q) after (%s", key, after), err, "the value set")
	}
	want := spi.StateEntry{Key: key, Value: json.RawMessage(value), Version: version}
	return c.Diff("Get", fmt.Sprintf("%q) after (%s", key, after), want, got, envCmp)
}

func dsAbsent(ctx context.Context, c *DurableStateStoreCase, key, after string) error {
	got, err := c.Store.Get(ctx, key)
	if !errors.Is(err, spi.ErrNotFound) {
		return c.Failf("Get", fmt.Sprintf("%q) after (%s", key, after), entryOrErr(got, err), "not found")
	}
	return nil
}

func entryOrErr(e spi.StateEntry, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("version %d, value %s", e.Version, clipS(string(e.Value)))
}
