package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

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
	if err := dsExpect(ctx, c, other, `"b"`, ov, "deleting another key"); err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, other, spi.Precondition{}); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q", other), err, "nil")
	}
	return dsAbsent(ctx, c, other, "an unconditional Delete")
}

// dsDeleteAbsent: an unconditional delete of an absent key, never set or deleted already,
// succeeds and changes nothing (I-PLUGIN-18).
func dsDeleteAbsent(ctx context.Context, c *DurableStateStoreCase) error {
	k, never := c.ExecID("del-absent"), c.ExecID("del-never")
	v, err := dsSet(ctx, c, k, `"a"`, spi.Precondition{})
	if err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, k, spi.IfVersion(v)); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d", k, v), err, "nil")
	}
	for _, x := range []string{k, never} {
		if err := c.Store.Delete(ctx, x, spi.Precondition{}); err != nil {
			return c.Failf("Delete", fmt.Sprintf("%q) an absent key (", x), err, "nil (idempotent)")
		}
		if err := dsAbsent(ctx, c, x, "an unconditional Delete of an absent key"); err != nil {
			return err
		}
	}
	return nil
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

// dsVersionAcrossDelete: after a delete the key is absent, at version 0 (I-PLUGIN-5): a set or a
// delete on the version read before the delete is a conflict and changes nothing — a store that
// keeps a deleted key's last version as a tombstone and compares a condition with it lets a writer
// that read before the delete resurrect the key.
func dsVersionAcrossDelete(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("across-delete")
	v, err := dsSet(ctx, c, k, `{"gen":1}`, spi.Precondition{})
	if err != nil {
		return err
	}
	if err := c.Store.Delete(ctx, k, spi.IfVersion(v)); err != nil {
		return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d", k, v), err, "nil")
	}
	_, err = c.Store.Set(ctx, k, json.RawMessage(`{"gen":"zombie"}`), spi.IfVersion(v))
	if e := expectErr(c, "Set", fmt.Sprintf("%q, ifVersion %d) read before (the key was deleted", k, v), err, spi.ErrConflict); e != nil {
		return e
	}
	if err := dsAbsent(ctx, c, k, fmt.Sprintf("a Set on version %d, read before the delete", v)); err != nil {
		return err
	}
	err = c.Store.Delete(ctx, k, spi.IfVersion(v))
	if e := expectErr(c, "Delete", fmt.Sprintf("%q, ifVersion %d) read before (the key was deleted", k, v), err, spi.ErrConflict); e != nil {
		return e
	}
	w, err := dsSet(ctx, c, k, `{"gen":2}`, spi.IfVersion(0))
	if err != nil {
		return err
	}
	return dsExpect(ctx, c, k, `{"gen":2}`, w, "a create-only Set after the delete")
}
