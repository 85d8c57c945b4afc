package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// dsGapChecks apply the cross-seam rules to the DurableStateStore: keys on every method, sets
// never skipped as unchanged, sets that replace the whole value, and sets seen whole by
// concurrent readers.
func dsGapChecks() []Check[spi.DurableStateStore] {
	type C = Check[spi.DurableStateStore]
	return []C{
		{ID: "durablestatestore/keys-apart-every-method", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-7", "I-PLUGIN-5", "I-STORE-4"}, Level: spec.Must,
			Doc: "get, set (create-only, unconditional, on a version, stale) and delete (conditional, stale, unconditional) keep keys apart that differ only by case, trailing space or normal form, or extend one another (also after : / . |), each key of a pair worked while the other holds a value; get of the empty key returns no value", Run: dsKeysEveryMethod},
		{ID: "durablestatestore/set-never-skipped", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-6", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "setting the value already stored, byte for byte or in another JSON spelling, still raises the version and reads back as that value; a value differing only in a number a double cannot tell apart is stored", Run: dsSetNeverSkipped},
		{ID: "durablestatestore/set-replaces-whole", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "a set replaces the whole value: keys the new object lacks are gone, nested objects are not merged, also on a conditional set", Run: dsSetReplacesWhole},
		{ID: "durablestatestore/readers-whole-set", Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-6"}, Level: spec.Must,
			Doc: "readers racing sets of a key that exists throughout always find it, with the value and version of one set, versions never going back (sees a torn set visible for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: dsReadersWholeSet},
	}
}

func dsKeysEveryMethod(ctx context.Context, c *DurableStateStoreCase) error {
	for _, p := range idPairs(c.ExecID("keys")) {
		// Each key of the pair in turn is worked through every method while the other holds a
		// value: a store that folds, trims or normalises keys on one method in one direction only
		// still meets it.
		for _, o := range [][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			if err := dsKeyBeside(ctx, c, o[0], o[1]); err != nil {
				return err
			}
		}
	}
	got, err := c.Store.Get(ctx, "")
	if err == nil {
		return c.Failf("Get", `""`, entryOrErr(got, err), "not found or an invalid-argument error")
	}
	return nil
}

// dsKeyBeside works key x through get, create-only set, unconditional set, set on a version,
// stale conditional set and delete, conditional delete, unconditional delete of the absent key
// and re-creation, while y holds a value that none of it may touch.
func dsKeyBeside(ctx context.Context, c *DurableStateStoreCase, x, y string) error {
	vy, err := c.Store.Set(ctx, y, json.RawMessage(`{"of":"y"}`), spi.Precondition{})
	if err != nil {
		return c.Failf("Set", fmt.Sprintf("%q", y), err, "nil")
	}
	yKept := func(after string) error {
		return dsExpect(ctx, c, y, `{"of":"y"}`, vy, fmt.Sprintf("%s of %q", after, x))
	}
	if err := dsAbsent(ctx, c, x, fmt.Sprintf("a set of %q only", y)); err != nil {
		return err
	}
	v1, err := c.Store.Set(ctx, x, json.RawMessage(`{"of":"x","n":1}`), spi.IfVersion(0))
	if err != nil {
		return c.Failf("Set", fmt.Sprintf("%q, ifVersion 0) create-only next to (%q", x, y), err, "nil (another key)")
	}
	if err := yKept("a create-only Set"); err != nil {
		return err
	}
	if err := dsExpect(ctx, c, x, `{"of":"x","n":1}`, v1, "its create-only Set"); err != nil {
		return err
	}
	v2, err := c.Store.Set(ctx, x, json.RawMessage(`{"of":"x","n":2}`), spi.Precondition{})
	if err != nil {
		return c.Failf("Set", fmt.Sprintf("%q) unconditional, next to (%q", x, y), err, "nil")
	}
	if err := yKept("an unconditional Set"); err != nil {
		return err
	}
	v3, err := c.Store.Set(ctx, x, json.RawMessage(`{"of":"x","n":3}`), spi.IfVersion(v2))
	if err != nil {
		return c.Failf("Set", fmt.Sprintf("%q, ifVersion %d) on its current version, next to (%q", x, v2, y), err, "nil")
	}
	if err := yKept("a Set on a version"); err != nil {
		return err
	}
	if _, err := c.Store.Set(ctx, x, json.RawMessage(`{"of":"x","n":4}`), spi.IfVersion(v1)); !errors.Is(err, spi.ErrConflict) {
		return c.Failf("Set", fmt.Sprintf("%q, ifVersion %d) stale (current %d), next to (%q", x, v1, v3, y), err, "a conflict")
	}
	if err := c.Store.Delete(ctx, x, spi.IfVersion(v1)); !errors.Is(err, spi.ErrConflict) {
		return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d) stale (current %d), next to (%q", x, v1, v3, y), err, "a conflict")
	}
	if err := dsExpect(ctx, c, x, `{"of":"x","n":3}`, v3, "a refused Set and Delete on a stale version"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, x, spi.IfVersion(v3)); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d) next to (%q", x, v3, y), err, "nil")
	}
	if err := dsAbsent(ctx, c, x, "its Delete"); err != nil {
		return err
	}
	if err := yKept("a conditional Delete"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, x, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q) absent, next to (%q", x, y), err, "nil (a no-op)")
	}
	if err := yKept("an unconditional Delete of the absent key"); err != nil {
		return err
	}
	if _, err := c.Store.Set(ctx, x, json.RawMessage(`{"of":"x","gen":2}`), spi.Precondition{}); err != nil {
		return c.Failf("Set", fmt.Sprintf("%q) re-created, next to (%q", x, y), err, "nil")
	}
	if err := c.Store.Delete(ctx, x, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q) unconditional, next to (%q", x, y), err, "nil")
	}
	if err := yKept("a re-creation and an unconditional Delete"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, y, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q", y), err, "nil")
	}
	return nil
}

// bigValue is a value with a number a double cannot hold; bigValueNext differs from it only there.
const (
	bigValue     = `{"n":12345678901234567890,"s":"x","o":{"k":[1,2]}}`
	bigValueNext = `{"n":12345678901234567891,"s":"x","o":{"k":[1,2]}}`
)

func dsSetNeverSkipped(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("again")
	last, err := dsSet(ctx, c, k, bigValue, spi.Precondition{})
	if err != nil {
		return err
	}
	for _, w := range []struct {
		how, value  string
		conditional bool
	}{
		{"the same bytes again", bigValue, false},
		{"the same value respelled", string(respell(json.RawMessage(bigValue))), false},
		{"the same value on its current version", bigValue, true},
		{"a value differing only in a number beyond 2^64", bigValueNext, false},
	} {
		pre := spi.Precondition{}
		if w.conditional {
			pre = spi.IfVersion(last)
		}
		v, err := c.Store.Set(ctx, k, json.RawMessage(w.value), pre)
		if err != nil {
			return c.Failf("Set", fmt.Sprintf("%q, %s%s) %s (", k, clipS(w.value), preArg(pre), w.how), err, "nil")
		}
		if v <= last {
			return c.Failf("Set", fmt.Sprintf("%q, %s%s) %s, after version %d (", k, clipS(w.value), preArg(pre), w.how, last), v, fmt.Sprintf("a version > %d", last))
		}
		last = v
		if err := dsExpect(ctx, c, k, w.value, v, "Set of "+w.how); err != nil {
			return err
		}
	}
	return nil
}

func dsSetReplacesWhole(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("whole")
	v, err := dsSet(ctx, c, k, `{"a":1,"b":{"x":1,"y":2},"c":[1,2],"flag":true}`, spi.Precondition{})
	if err != nil {
		return err
	}
	for _, w := range []struct {
		how, value  string
		conditional bool
	}{
		{"an object lacking keys of the stored one", `{"b":{"x":3},"d":null}`, false},
		{"an object lacking keys, on the current version", `{"d":{"e":1}}`, true},
		{"an empty object", `{}`, false},
	} {
		pre := spi.Precondition{}
		if w.conditional {
			pre = spi.IfVersion(v)
		}
		if v, err = dsSet(ctx, c, k, w.value, pre); err != nil {
			return err
		}
		if err := dsExpect(ctx, c, k, w.value, v, "Set of "+w.how); err != nil {
			return err
		}
	}
	return nil
}

// dsSeen is one value a reader saw: the set number in it and the version it came with.
type dsSeen struct {
	i       int
	version int64
}

func dsReadersWholeSet(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("readers-set")
	const rounds, readers = 16, 2
	pad := strings.Repeat("p", 2000)
	value := func(i int) string { return fmt.Sprintf(`{"i":%d,"pad":%q}`, i, pad) }
	v0, err := dsSet(ctx, c, k, value(0), spi.IfVersion(0))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	versions := map[int]int64{0: v0}
	var seen []dsSeen
	last := make([]dsSeen, readers) // per reader, the last value it saw
	err = readersRace(ctx, c, readers, rounds, func(ctx context.Context, i int) error {
		v, err := dsSet(ctx, c, k, value(i+1), spi.Precondition{})
		if err != nil {
			return err
		}
		mu.Lock()
		versions[i+1] = v
		mu.Unlock()
		return nil
	}, func(r, i int, after bool) error {
		got, err := c.Store.Get(ctx, k)
		if err != nil {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets of a key that exists throughout (", k), err, "the value of one set")
		}
		var x struct{ I int }
		if json.Unmarshal(got.Value, &x) != nil {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), clipS(string(got.Value)), "the value of one set")
		}
		s := dsSeen{x.I, got.Version}
		if s.version < last[r].version || s.i < last[r].i {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets, after this reader saw set %d at version %d (", k, last[r].i, last[r].version), fmt.Sprintf("set %d at version %d", s.i, s.version), "no older set, no lower version")
		}
		mu.Lock()
		prev, known := versions[s.i-1]
		mu.Unlock()
		if known && s.i > 0 && s.version <= prev {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), fmt.Sprintf("the value of set %d at version %d", s.i, s.version), fmt.Sprintf("a version above set %d's, %d", s.i-1, prev))
		}
		if after && s.i != i+1 {
			return c.Failf("Get", fmt.Sprintf("%q) after set %d returned (", k, i+1), fmt.Sprintf("the value of set %d", s.i), fmt.Sprintf("the value of set %d", i+1))
		}
		last[r] = s
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range seen {
		if want, ok := versions[s.i]; !ok || s.version != want {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), fmt.Sprintf("the value of set %d at version %d", s.i, s.version), fmt.Sprintf("the version set %d returned, %d", s.i, want))
		}
	}
	return nil
}
