package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// BranchRegistryCase is what a BranchRegistry check runs against.
type BranchRegistryCase = Case[spi.BranchRegistry]

// BranchRegistryKit is the BranchRegistry conformance kit (spec §7).
func BranchRegistryKit() Kit[spi.BranchRegistry] {
	type C = Check[spi.BranchRegistry]
	return Kit[spi.BranchRegistry]{Name: "branchregistry", Seam: manifest.SeamBranchRegistry, Checks: append([]C{
		{ID: "branchregistry/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *BranchRegistryCase) error {
				return versionClaim(c, manifest.SeamBranchRegistry)
			}},
		{ID: "branchregistry/register-get", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a registered branch reads back value-exact; an unknown id is not-found", Run: brRegisterGet},
		{ID: "branchregistry/roundtrip-precision", Clauses: []string{"I-STORE-20", "I-STORE-3", "I-STORE-25"}, Level: spec.Must,
			Doc: "metadata numbers a double cannot hold read back exactly", Run: brRoundtripPrecision},
		{ID: "branchregistry/register-idempotent", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "registering an equal branch again succeeds; a different one under the id is already-exists and changes nothing", Run: brIdempotent},
		{ID: "branchregistry/concurrent-register", Clauses: []string{"I-STORE-20", "I-STORE-14"}, Level: spec.Must,
			Doc: "of racing registrations of different branches under one id exactly one wins", Run: brConcurrent},
		{ID: "branchregistry/list-children", Clauses: []string{"I-STORE-20", "I-STORE-4"}, Level: spec.Must,
			Doc: "listChildren returns exactly the direct children, ascending by id", Run: brChildren},
		{ID: "branchregistry/no-cycles", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a branch that would close a cycle is refused", Run: brNoCycles},
		{ID: "branchregistry/invalid", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "empty ids, a negative fork sequence and non-object metadata are invalid arguments", Run: brInvalid},
	}, brGapChecks()...)}
}

// CheckBranchRegistry runs the BranchRegistry kit and returns errors.Join of every failure and unknown.
func CheckBranchRegistry(ctx context.Context, factory Factory[spi.BranchRegistry], opts Options) error {
	results, err := Run(ctx, BranchRegistryKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func register(ctx context.Context, c *BranchRegistryCase, b spi.Branch) error {
	if err := c.Store.Register(ctx, b); err != nil {
		return c.Failf("Register", fmt.Sprintf("%q ← %q", b.ID, b.ParentID), err, "nil")
	}
	return nil
}

func expectBranch(ctx context.Context, c *BranchRegistryCase, want spi.Branch, after string) error {
	got, err := c.Store.Get(ctx, want.ID)
	if err != nil {
		return c.Failf("Get", fmt.Sprintf("%q) after (%s", want.ID, after), err, "the branch")
	}
	return c.Diff("Get", fmt.Sprintf("%q) after (%s", want.ID, after), want, got, envCmp)
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
	diff := b
	diff.ForkSequence = 4
	err := c.Store.Register(ctx, diff)
	if e := expectErr(c, "Register", fmt.Sprintf("%q) with another fork sequence (", b.ID), err, spi.ErrAlreadyExists); e != nil {
		return e
	}
	return expectBranch(ctx, c, b, "a refused re-registration")
}

func brChildren(ctx context.Context, c *BranchRegistryCase) error {
	p := c.ExecID("parent")
	var want []spi.Branch
	for _, n := range []string{"c", "a", "b"} {
		b := spi.Branch{ID: p + "/" + n, ParentID: p, ForkSequence: int64(len(n))}
		if err := register(ctx, c, b); err != nil {
			return err
		}
	}
	for _, n := range []string{"a", "b", "c"} {
		want = append(want, spi.Branch{ID: p + "/" + n, ParentID: p, ForkSequence: 1})
	}
	// A grandchild and a sibling tree must not show up.
	if err := register(ctx, c, spi.Branch{ID: p + "/a/x", ParentID: p + "/a", ForkSequence: 2}); err != nil {
		return err
	}
	other := c.ExecID("parent-other")
	if err := register(ctx, c, spi.Branch{ID: other + "/z", ParentID: other, ForkSequence: 2}); err != nil {
		return err
	}
	// Nor children of parents whose ids extend p's (a registry scanning a key prefix without a
	// separator mixes them, I-STORE-4).
	for _, ext := range []string{p + "0", p + "/", p + "-1"} {
		if err := register(ctx, c, spi.Branch{ID: ext + "/child", ParentID: ext, ForkSequence: 5}); err != nil {
			return err
		}
	}
	got, err := c.Store.ListChildren(ctx, p)
	if err != nil {
		return c.Failf("ListChildren", fmt.Sprintf("%q", p), err, "nil")
	}
	if got == nil {
		got = []spi.Branch{}
	}
	if err := c.Diff("ListChildren", fmt.Sprintf("%q", p), want, got, envCmp); err != nil {
		return err
	}
	none, err := c.Store.ListChildren(ctx, c.ExecID("childless"))
	if err != nil {
		return c.Failf("ListChildren", "childless", err, "nil")
	}
	if len(none) != 0 {
		return c.Failf("ListChildren", "childless", fmt.Sprintf("%d branches", len(none)), "none")
	}
	return nil
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
