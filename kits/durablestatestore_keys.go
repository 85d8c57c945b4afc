package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

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

func dsKeys(ctx context.Context, c *DurableStateStoreCase) error {
	base := c.ExecID("Key")
	keys := []string{base, base + "x", base + "/", base + " ", base[:len(base)-1], upper(base), base + "é", base + "e\u0301", base + "%", base + "_"}
	vers := map[string]int64{}
	for i, k := range keys {
		v, err := dsSet(ctx, c, k, fmt.Sprintf(`{"i":%d}`, i), spi.Precondition{})
		if err != nil {
			return err
		}
		vers[k] = v
	}
	for i, k := range keys {
		if err := dsExpect(ctx, c, k, fmt.Sprintf(`{"i":%d}`, i), vers[k], "setting keys that resemble it"); err != nil {
			return err
		}
	}
	return nil
}
