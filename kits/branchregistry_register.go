package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// brRegisterRespelled: registering the same branch with its metadata respelled succeeds, and a
// number a double cannot tell apart is still a different value (I-STORE-72, I-STORE-29).
func brRegisterRespelled(ctx context.Context, c *BranchRegistryCase) error {
	b := spi.Branch{ID: c.ExecID("b"), ParentID: c.ExecID("p"), ForkSequence: 3,
		Metadata: json.RawMessage(`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	same := b
	same.Metadata = respell(b.Metadata)
	if err := c.Store.Register(ctx, same); err != nil {
		return c.Failf("Register", fmt.Sprintf("%q) the same branch, metadata respelled (%s", b.ID, same.Metadata), err, "nil (the same value)")
	}
	return registerRefused(ctx, c, b, []struct{ name, meta string }{
		{"a number one off beyond 2^64", `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567891}`},
	})
}

// brRegisterDifferentValues: metadata whose value differs in every reading (a string for a
// number, an added key, a letter's case) is a different branch: already-exists, nothing changed
// (I-STORE-20).
func brRegisterDifferentValues(ctx context.Context, c *BranchRegistryCase) error {
	b := spi.Branch{ID: c.ExecID("b"), ParentID: c.ExecID("p"), ForkSequence: 3,
		Metadata: json.RawMessage(`{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]}}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	return registerRefused(ctx, c, b, []struct{ name, meta string }{
		{"a string for a number", `{"n":"1","s":"Abc","o":{"x":1.5,"y":[2,-3]}}`},
		{"an added null key", `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"u":null}`},
		{"a string differing in case", `{"n":1,"s":"ABC","o":{"x":1.5,"y":[2,-3]}}`},
	})
}

// registerRefused registers b with each other metadata, expects already-exists each time, and b
// still registered.
func registerRefused(ctx context.Context, c *BranchRegistryCase, b spi.Branch, others []struct{ name, meta string }) error {
	var errs []error
	for _, v := range others {
		d := b
		d.Metadata = json.RawMessage(v.meta)
		err := c.Store.Register(ctx, d)
		if e := expectErr(c, "Register", fmt.Sprintf("%q) with metadata (%s", b.ID, v.name), err, spi.ErrAlreadyExists); e != nil {
			errs = append(errs, e)
		}
	}
	if e := expectBranch(ctx, c, b, "re-registrations with other metadata"); e != nil {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

func brRegisterGet(ctx context.Context, c *BranchRegistryCase) error {
	root := c.ExecID("root")
	b := spi.Branch{ID: c.ExecID("child"), ParentID: root, ForkSequence: 41,
		Metadata: json.RawMessage(`{"forkedBy":"operator ✓","reason":{"n":42,"f":0.1},"empty":{}}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	if err := expectBranch(ctx, c, b, "Register"); err != nil {
		return err
	}
	plain := spi.Branch{ID: c.ExecID("plain"), ParentID: root, ForkSequence: 0}
	if err := register(ctx, c, plain); err != nil {
		return err
	}
	got, err := c.Store.Get(ctx, plain.ID)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%q", plain.ID), err, "the branch")
	}
	if len(got.Metadata) != 0 && string(got.Metadata) != "null" {
		return c.Failf("Get", fmt.Sprintf("%q) metadata (", plain.ID), string(got.Metadata), "absent")
	}
	_, err = c.Store.Get(ctx, root)
	return expectErr(c, "Get", fmt.Sprintf("%q (never registered)", root), err, spi.ErrNotFound)
}

func brRoundtripPrecision(ctx context.Context, c *BranchRegistryCase) error {
	b := spi.Branch{ID: c.ExecID("precise"), ParentID: c.ExecID("root"), ForkSequence: 7,
		Metadata: json.RawMessage(`{"n":12345678901234567890,"big":12345678901234567890123456789,"pi":3.141592653589793238462643383279}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	return expectBranch(ctx, c, b, "Register with numbers a double cannot hold")
}

// brIdempotent: registering an equal branch again succeeds and changes nothing (I-STORE-72).
func brIdempotent(ctx context.Context, c *BranchRegistryCase) error {
	b := spi.Branch{ID: c.ExecID("b"), ParentID: c.ExecID("p"), ForkSequence: 3, Metadata: json.RawMessage(`{"a":1,"b":2}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	same := b
	same.Metadata = json.RawMessage(`{"b":2,"a":1}`)
	if err := c.Store.Register(ctx, same); err != nil {
		return c.Failf("Register", fmt.Sprintf("%q) an equal branch again (", b.ID), err, "nil")
	}
	return expectBranch(ctx, c, b, "an equal re-registration")
}

// brDifferentRefused: a different branch under a registered id is already-exists and changes
// nothing (I-STORE-20).
func brDifferentRefused(ctx context.Context, c *BranchRegistryCase) error {
	b := spi.Branch{ID: c.ExecID("b"), ParentID: c.ExecID("p"), ForkSequence: 3, Metadata: json.RawMessage(`{"a":1,"b":2}`)}
	if err := register(ctx, c, b); err != nil {
		return err
	}
	diff := b
	diff.ForkSequence = 4
	err := c.Store.Register(ctx, diff)
	if e := expectErr(c, "Register", fmt.Sprintf("%q) with another fork sequence (", b.ID), err, spi.ErrAlreadyExists); e != nil {
		return e
	}
	return expectBranch(ctx, c, b, "a refused re-registration")
}

func brNoCycles(ctx context.Context, c *BranchRegistryCase) error {
	a, b, d := c.ExecID("a"), c.ExecID("b"), c.ExecID("d")
	if err := register(ctx, c, spi.Branch{ID: b, ParentID: a, ForkSequence: 1}); err != nil {
		return err
	}
	if err := register(ctx, c, spi.Branch{ID: d, ParentID: b, ForkSequence: 1}); err != nil {
		return err
	}
	for _, bad := range []spi.Branch{{ID: a, ParentID: d, ForkSequence: 1}, {ID: a, ParentID: a, ForkSequence: 1}} {
		err := c.Store.Register(ctx, bad)
		if e := expectErr(c, "Register", fmt.Sprintf("%q ← %q (cycle)", bad.ID, bad.ParentID), err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	_, err := c.Store.Get(ctx, a)
	return expectErr(c, "Get", fmt.Sprintf("%q) after refused cycles (", a), err, spi.ErrNotFound)
}

func brInvalid(ctx context.Context, c *BranchRegistryCase) error {
	x := c.ExecID("inv")
	for name, b := range map[string]spi.Branch{
		"empty id":          {ID: "", ParentID: x, ForkSequence: 1},
		"empty parent":      {ID: x, ParentID: "", ForkSequence: 1},
		"negative fork":     {ID: x, ParentID: x + "p", ForkSequence: -1},
		"metadata an array": {ID: x, ParentID: x + "p", ForkSequence: 1, Metadata: json.RawMessage(`[1]`)},
	} {
		err := c.Store.Register(ctx, b)
		if e := expectErr(c, "Register", name, err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	_, err := c.Store.Get(ctx, x)
	return expectErr(c, "Get", fmt.Sprintf("%q) after invalid registrations (", x), err, spi.ErrNotFound)
}

func brConcurrent(ctx context.Context, c *BranchRegistryCase) error {
	for round := 0; round < 4; round++ {
		c.Progress(round, 4)
		id := c.ExecID("contested")
		const n = 5
		branches := make([]spi.Branch, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := 0; i < n; i++ {
			branches[i] = spi.Branch{ID: id, ParentID: c.ExecID("parent"), ForkSequence: int64(i)}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer c.Recover()
				<-gate
				errs[i] = c.Store.Register(ctx, branches[i])
			}(i)
		}
		close(gate)
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				return c.Failf("Register", fmt.Sprintf("%q ×%d racing, different parents", id, n), "two winners", "exactly one")
			case err == nil:
				winner = i
			case !errors.Is(err, spi.ErrAlreadyExists):
				return c.Failf("Register", fmt.Sprintf("%q racing", id), err, "nil or already exists")
			}
		}
		if winner < 0 {
			return c.Failf("Register", fmt.Sprintf("%q ×%d racing", id, n), "no winner", "exactly one")
		}
		if err := expectBranch(ctx, c, branches[winner], fmt.Sprintf("racing registrations, %d won", winner)); err != nil {
			return err
		}
	}
	return nil
}

// brRegisterUnknownParent: the registry never reads logs: a branch of a parent that was never
// registered or written, forked at any sequence >= 0, is registered (I-STORE-54).
func brRegisterUnknownParent(ctx context.Context, c *BranchRegistryCase) error {
	x := c.ExecID("unknown-parent")
	b := spi.Branch{ID: x, ParentID: x + "-never-written", ForkSequence: 100_000}
	if err := c.Store.Register(ctx, b); err != nil {
		return c.Failf("Register", fmt.Sprintf("%q, parent %q (never registered or written), forkSequence %d", b.ID, b.ParentID, b.ForkSequence), err, "nil (the registry does not read logs)")
	}
	got, err := c.Store.Get(ctx, x)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%q", x), err, "the branch registered")
	}
	return c.Diff("Get", fmt.Sprintf("%q) after (registering it under a parent never written", x), b, got, envCmp)
}
