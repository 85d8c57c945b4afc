package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// brGapChecks apply the cross-seam rules to the BranchRegistry: ids on every method, children
// listed in byte order, and equality by value on re-registration.
func brGapChecks() []Check[spi.BranchRegistry] {
	type C = Check[spi.BranchRegistry]
	return []C{
		{ID: "branchregistry/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27", "I-STORE-20"}, Level: spec.Must,
			Doc: "register, get and listChildren keep branch and parent ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . |", Run: brIDsEveryMethod},
		{ID: "branchregistry/list-children-byte-order", Clauses: []string{"I-STORE-20", "I-STORE-28"}, Level: spec.Must,
			Doc: "listChildren returns children whose ids differ only by case, trailing space or normal form once each, in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order)", Run: brChildrenByteOrder},
		{ID: "branchregistry/register-respelled", Clauses: []string{"I-STORE-20", "I-STORE-29"}, Level: spec.Must,
			Doc: "registering the same branch with its metadata in another JSON spelling (key order, 1 vs 10e-1, escapes) is a no-op; a different value (a number a double cannot tell apart, a string for a number, an added key) is already-exists and changes nothing", Run: brRegisterRespelled},
	}
}

func brIDsEveryMethod(ctx context.Context, c *BranchRegistryCase) error {
	root := c.ExecID("root")
	for _, p := range idPairs(c.ExecID("ids")) {
		a, b := p[0], p[1]
		ba := spi.Branch{ID: a, ParentID: root, ForkSequence: 1, Metadata: json.RawMessage(`{"of":"a"}`)}
		bb := spi.Branch{ID: b, ParentID: root, ForkSequence: 2, Metadata: json.RawMessage(`{"of":"b"}`)}
		if err := register(ctx, c, ba); err != nil {
			return err
		}
		if err := c.Store.Register(ctx, bb); err != nil {
			return c.Failf("Register", fmt.Sprintf("%q) next to (%q", b, a), err, "nil (another id)")
		}
		if err := expectBranch(ctx, c, ba, fmt.Sprintf("registering %q", b)); err != nil {
			return err
		}
		if err := expectBranch(ctx, c, bb, fmt.Sprintf("registering %q", a)); err != nil {
			return err
		}
		// Parents that differ the same way have their own children.
		ca := spi.Branch{ID: a + "/child", ParentID: a, ForkSequence: 3}
		cb := spi.Branch{ID: b + "/child", ParentID: b, ForkSequence: 4}
		if err := register(ctx, c, ca); err != nil {
			return err
		}
		if err := register(ctx, c, cb); err != nil {
			return err
		}
		for _, x := range []struct {
			parent string
			want   []spi.Branch
		}{{a, []spi.Branch{ca}}, {b, []spi.Branch{cb}}} {
			got, err := c.Store.ListChildren(ctx, x.parent)
			if err != nil {
				return c.Failf("ListChildren", fmt.Sprintf("%q", x.parent), err, "nil")
			}
			if got == nil {
				got = []spi.Branch{}
			}
			if d := c.Diff("ListChildren", fmt.Sprintf("%q) next to (%q", x.parent, other(x.parent, a, b)), x.want, got, envCmp); d != nil {
				return d
			}
		}
	}
	return nil
}

func brChildrenByteOrder(ctx context.Context, c *BranchRegistryCase) error {
	p := c.ExecID("parent")
	ids, asc := byteOrderIDs(p + "/")
	for i, id := range ids {
		if err := register(ctx, c, spi.Branch{ID: id, ParentID: p, ForkSequence: int64(i)}); err != nil {
			return err
		}
	}
	got, err := c.Store.ListChildren(ctx, p)
	if err != nil {
		return c.Failf("ListChildren", fmt.Sprintf("%q", p), err, "nil")
	}
	names := make([]string, len(got))
	for i, b := range got {
		names[i] = b.ID
	}
	return c.Diff("ListChildren", fmt.Sprintf("%q) ids only, children differing by case, trailing space and normal form (", p), asc, names)
}

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
	var errs []error
	for _, v := range []struct{ name, meta string }{
		{"a number one off beyond 2^64", `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567891}`},
		{"a string for a number", `{"n":"1","s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`},
		{"an added null key", `{"n":1,"s":"Abc","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890,"u":null}`},
		{"a string differing in case", `{"n":1,"s":"ABC","o":{"x":1.5,"y":[2,-3]},"big":12345678901234567890}`},
	} {
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
