package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// DurableStateStoreCase is what a DurableStateStore check runs against.
type DurableStateStoreCase = Case[spi.DurableStateStore]

// DurableStateStoreKit is the DurableStateStore conformance kit (spec §7, plugin tier).
func DurableStateStoreKit() Kit[spi.DurableStateStore] {
	type C = Check[spi.DurableStateStore]
	return Kit[spi.DurableStateStore]{Name: "durablestatestore", Seam: manifest.SeamDurableStateStore, Checks: append([]C{
		{ID: "durablestatestore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *DurableStateStoreCase) error {
				return versionClaim(c, manifest.SeamDurableStateStore)
			}},
		{ID: "durablestatestore/set-get", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-7", "I-PLUGIN-6"}, Level: spec.Must,
			Doc: "set then get returns the value by JSON value (objects, arrays, scalars, unicode, 256 KiB) with the version set returned; each write raises the version", Run: dsSetGet},
		{ID: "durablestatestore/roundtrip-precision", Clauses: []string{"I-PLUGIN-7", "I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold read back exactly", Run: dsPrecision},
		{ID: "durablestatestore/get-unknown", Clauses: []string{"I-PLUGIN-7"}, Level: spec.Must,
			Doc: "get of a key never set is not-found", Run: dsGetUnknown},
		{ID: "durablestatestore/conditional-set", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "a set on a stale version, or create-only on a present key, is a conflict and changes nothing; on the current version it lands", Run: dsConditionalSet},
		{ID: "durablestatestore/no-lost-update", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "racing read-modify-write increments under compare-and-set lose no update", Run: dsNoLostUpdate},
		{ID: "durablestatestore/delete", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-6", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "delete removes the key; a conditional delete on a stale version is a conflict and keeps it; deleting an absent key is a no-op", Run: dsDelete},
		{ID: "durablestatestore/versions-not-reused", Clauses: []string{"I-PLUGIN-6", "I-PLUGIN-5"}, Level: spec.Must,
			Doc: "after delete and re-create the version is above every earlier one, so a version read before the delete never matches", Run: dsVersionsNotReused},
		{ID: "durablestatestore/key-isolation", Clauses: []string{"I-PLUGIN-7", "I-STORE-4"}, Level: spec.Must,
			Doc: "keys that extend one another or differ only by case, trailing space or normal form are different keys", Run: dsKeys},
		{ID: "durablestatestore/invalid", Clauses: []string{"I-PLUGIN-5", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "an empty key, a value that is not JSON and a negative expected version are invalid arguments and change nothing", Run: dsInvalid},
	}, dsGapChecks()...)}
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

func clipS(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
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

func dsSetGet(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("k")
	big := fmt.Sprintf(`{"blob":%q}`, string(make([]byte, 0))+string(bytesOf('x', 256<<10)))
	last := int64(0)
	for _, v := range []string{`{"a":1,"nested":{"b":[1,2,{"c":null}]},"s":"é ✓ \u0000 \"q\""}`, `[1,"two",3.5]`, `"plain"`, `0`, `true`, `null`, `{}`, big} {
		ver, err := dsSet(ctx, c, k, v, spi.Precondition{})
		if err != nil {
			return err
		}
		if ver <= last {
			return c.Failf("Set", fmt.Sprintf("%q, %s) after version %d (", k, clipS(v), last), ver, fmt.Sprintf("a version > %d", last))
		}
		last = ver
		if err := dsExpect(ctx, c, k, v, ver, "Set"); err != nil {
			return err
		}
	}
	return nil
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

func dsPrecision(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("precise")
	v := `{"n":12345678901234567890,"big":123456789012345678901234567890,"pi":3.141592653589793238462643383279,"neg":-9007199254740993}`
	ver, err := dsSet(ctx, c, k, v, spi.Precondition{})
	if err != nil {
		return err
	}
	return dsExpect(ctx, c, k, v, ver, "Set with numbers a double cannot hold")
}

func dsGetUnknown(ctx context.Context, c *DurableStateStoreCase) error {
	return dsAbsent(ctx, c, c.ExecID("never"), "nothing was set")
}

func dsConditionalSet(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("cas")
	v1, err := dsSet(ctx, c, k, `{"n":1}`, spi.IfVersion(0))
	if err != nil {
		return err
	}
	_, err = c.Store.Set(ctx, k, json.RawMessage(`{"n":"create again"}`), spi.IfVersion(0))
	if e := expectErr(c, "Set", fmt.Sprintf("%q, ifVersion 0) on a present key (", k), err, spi.ErrConflict); e != nil {
		return e
	}
	v2, err := dsSet(ctx, c, k, `{"n":2}`, spi.IfVersion(v1))
	if err != nil {
		return err
	}
	if v2 <= v1 {
		return c.Failf("Set", fmt.Sprintf("%q, ifVersion %d", k, v1), v2, fmt.Sprintf("a version > %d", v1))
	}
	for _, stale := range []int64{v1, v2 + 1, v2 + 1000} {
		_, err = c.Store.Set(ctx, k, json.RawMessage(`{"n":"stale"}`), spi.IfVersion(stale))
		if e := expectErr(c, "Set", fmt.Sprintf("%q, ifVersion %d) with current version %d (", k, stale, v2), err, spi.ErrConflict); e != nil {
			return e
		}
	}
	if err := dsExpect(ctx, c, k, `{"n":2}`, v2, "refused conditional sets"); err != nil {
		return err
	}
	_, err = c.Store.Set(ctx, c.ExecID("absent"), json.RawMessage(`1`), spi.IfVersion(1))
	return expectErr(c, "Set", "an absent key, ifVersion 1", err, spi.ErrConflict)
}

func dsNoLostUpdate(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("counter")
	if _, err := dsSet(ctx, c, k, `{"n":0}`, spi.IfVersion(0)); err != nil {
		return err
	}
	const workers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	gate := make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Recover()
			<-gate
			for i := 0; i < each; i++ {
				for attempt := 0; ; attempt++ {
					if attempt > 200 {
						errs <- c.Failf("Set", fmt.Sprintf("%q) read-modify-write (", k), "200 conflicts in a row", "progress")
						return
					}
					cur, err := c.Store.Get(ctx, k)
					if err != nil {
						errs <- c.Failf("Get", fmt.Sprintf("%q", k), err, "nil")
						return
					}
					var n struct{ N int }
					if err := json.Unmarshal(cur.Value, &n); err != nil {
						errs <- c.Failf("Get", fmt.Sprintf("%q", k), string(cur.Value), `{"n":<int>}`)
						return
					}
					_, err = c.Store.Set(ctx, k, json.RawMessage(`{"n":`+strconv.Itoa(n.N+1)+`}`), spi.IfVersion(cur.Version))
					if err == nil {
						break
					}
					if !errors.Is(err, spi.ErrConflict) {
						errs <- c.Failf("Set", fmt.Sprintf("%q, ifVersion %d", k, cur.Version), err, "nil or a conflict")
						return
					}
				}
			}
		}()
	}
	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}
	got, err := c.Store.Get(ctx, k)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%q", k), err, "nil")
	}
	var n struct{ N int }
	_ = json.Unmarshal(got.Value, &n)
	if n.N != workers*each {
		return c.Failf("Get", fmt.Sprintf("%q) after (%d×%d racing compare-and-set increments", k, workers, each), fmt.Sprintf("n = %d (%d updates lost)", n.N, workers*each-n.N), fmt.Sprintf("n = %d", workers*each))
	}
	return nil
}

func dsDelete(ctx context.Context, c *DurableStateStoreCase) error {
	k, other := c.ExecID("del"), c.ExecID("del-other")
	v1, err := dsSet(ctx, c, k, `"a"`, spi.Precondition{})
	if err != nil {
		return err
	}
	ov, err := dsSet(ctx, c, other, `"b"`, spi.Precondition{})
	if err != nil {
		return err
	}
	v2, err := dsSet(ctx, c, k, `"a2"`, spi.Precondition{})
	if err != nil {
		return err
	}
	for _, stale := range []int64{v1, 0} {
		err = c.Store.Delete(ctx, k, spi.IfVersion(stale))
		if e := expectErr(c, "Delete", fmt.Sprintf("%q, ifVersion %d) with current version %d (", k, stale, v2), err, spi.ErrConflict); e != nil {
			return e
		}
	}
	if err := dsExpect(ctx, c, k, `"a2"`, v2, "refused conditional deletes"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, k, spi.IfVersion(v2)); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d", k, v2), err, "nil")
	}
	if err := dsAbsent(ctx, c, k, "Delete"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, k, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q) an absent key (", k), err, "nil")
	}
	if err := dsExpect(ctx, c, other, `"b"`, ov, "deleting another key"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, other, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q", other), err, "nil")
	}
	return dsAbsent(ctx, c, other, "an unconditional Delete")
}

func dsVersionsNotReused(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("aba")
	var before int64
	for i := 0; i < 3; i++ {
		v, err := dsSet(ctx, c, k, fmt.Sprintf(`{"gen":1,"i":%d}`, i), spi.Precondition{})
		if err != nil {
			return err
		}
		before = v
	}
	if err := c.Store.Delete(ctx, k, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q", k), err, "nil")
	}
	v, err := dsSet(ctx, c, k, `{"gen":2}`, spi.IfVersion(0))
	if err != nil {
		return err
	}
	if v <= before {
		return c.Failf("Set", fmt.Sprintf("%q) re-created after delete at version %d (", k, before), v, fmt.Sprintf("a version > %d", before))
	}
	for i := 0; i < 2; i++ {
		if v, err = dsSet(ctx, c, k, fmt.Sprintf(`{"gen":2,"i":%d}`, i), spi.Precondition{}); err != nil {
			return err
		}
	}
	_, err = c.Store.Set(ctx, k, json.RawMessage(`{"gen":"zombie"}`), spi.IfVersion(before))
	if v != before {
		if e := expectErr(c, "Set", fmt.Sprintf("%q, ifVersion %d) read before delete and re-create (", k, before), err, spi.ErrConflict); e != nil {
			return e
		}
	}
	return dsExpect(ctx, c, k, `{"gen":2,"i":1}`, v, "a write with a version from before the delete")
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

func upper(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if ch >= 'a' && ch <= 'z' {
			b[i] = ch - 32
		}
	}
	return string(b)
}

func dsInvalid(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("inv")
	cases := []struct {
		name, key, value string
		pre              spi.Precondition
	}{
		{"empty key", "", `1`, spi.Precondition{}},
		{"value not JSON", k, `{"a":`, spi.Precondition{}},
		{"empty value", k, ``, spi.Precondition{}},
		{"negative ifVersion", k, `1`, spi.IfVersion(-1)},
	}
	for _, tc := range cases {
		_, err := c.Store.Set(ctx, tc.key, json.RawMessage(tc.value), tc.pre)
		if e := expectErr(c, "Set", tc.name, err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	if err := expectErr(c, "Delete", "empty key", c.Store.Delete(ctx, "", spi.Precondition{}), spi.ErrInvalidArgument); err != nil {
		return err
	}
	return dsAbsent(ctx, c, k, "invalid sets")
}
