package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// BranchRegistryCase is what a BranchRegistry check runs against.
type BranchRegistryCase = Case[spi.BranchRegistry]

// BranchRegistryKit is the BranchRegistry conformance kit (spec §7).
func BranchRegistryKit() Kit[spi.BranchRegistry] {
	type C = Check[spi.BranchRegistry]
	return Kit[spi.BranchRegistry]{Name: "branchregistry", Seam: manifest.SeamBranchRegistry, Checks: []C{
		{ID: "branchregistry/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *BranchRegistryCase) error {
				return versionClaim(c, manifest.SeamBranchRegistry)
			}},
		{ID: "branchregistry/register-get", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a registered branch reads back value-exact; an unknown id is not-found", Run: brRegisterGet},
		{ID: "branchregistry/roundtrip-precision", Clauses: []string{"I-STORE-25"}, Level: spec.Must,
			Doc: "metadata numbers a double cannot hold read back exactly", Run: brRoundtripPrecision},
		{ID: "branchregistry/register-unknown-parent", Clauses: []string{"I-STORE-54"}, Level: spec.Must,
			Doc: "a branch of a parent never registered or written, forked at sequence 100 000, is registered: the registry does not read logs; our choice, so recommended", Run: brRegisterUnknownParent},
		{ID: "branchregistry/register-idempotent", Clauses: []string{"I-STORE-72"}, Level: spec.Must,
			Doc: "registering an equal branch again succeeds and changes nothing; our choice, so recommended", Run: brIdempotent},
		{ID: "branchregistry/concurrent-register", Clauses: []string{"I-STORE-20", "I-STORE-14"}, Level: spec.Must,
			Doc: "of racing registrations of different branches under one id exactly one wins", Run: brConcurrent},
		{ID: "branchregistry/list-children", Clauses: []string{"I-STORE-20", "I-STORE-4"}, Level: spec.Must,
			Doc: "listChildren returns exactly the direct children, ascending by id", Run: brChildren},
		{ID: "branchregistry/no-cycles", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a branch that would close a cycle is refused", Run: brNoCycles},
		{ID: "branchregistry/invalid", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "empty ids, a negative fork sequence and non-object metadata are invalid arguments", Run: brInvalid},
		{ID: "branchregistry/ids-apart-every-method", Clauses: []string{"I-STORE-4", "I-STORE-27", "I-STORE-20", "I-STORE-80"}, Level: spec.Must,
			Doc: "register, get and listChildren keep branch and parent ids apart that differ only by case, trailing space or normal form, or extend one another, plainly or after one of : / . | _ - blank %; that differ by one of those delimiters swapped for another or for its escape (a:b, a_b, a%3Ab); or that are 1 024 bytes long and differ only in their last byte", Run: brIDsEveryMethod},
		{ID: "branchregistry/list-children-byte-order", Clauses: []string{"I-STORE-28"}, Level: spec.Must,
			Doc: "listChildren returns children whose ids differ only by case, trailing space or normal form in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order); our choice, so recommended", Run: brChildrenByteOrder},
		{ID: "branchregistry/register-respelled", Clauses: []string{"I-STORE-72", "I-STORE-29"}, Level: spec.Must,
			Doc: "registering the same branch with its metadata in another JSON spelling (key order, 1 vs 10e-1, escapes) is a no-op, and a number a double cannot tell apart is a different value (already-exists, nothing changed); our choices, so recommended", Run: brRegisterRespelled},
		{ID: "branchregistry/register-different-refused", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a different branch (another fork sequence) under a registered id is already-exists and changes nothing", Run: brDifferentRefused},
		{ID: "branchregistry/register-different-values", Clauses: []string{"I-STORE-20"}, Level: spec.Must,
			Doc: "a branch whose metadata differs in value (a string for a number, an added null key, a letter's case) under a registered id is already-exists and changes nothing", Run: brRegisterDifferentValues},
		{ID: "branchregistry/explore", Clauses: brExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of registrations (under a registered root, of the same branch again, of another under a taken id, of cycles), gets and listings of children over ids and parents that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with metadata from the round-trip corpus, answer as the in-memory reference does; about one step in five is two made at once on one id, each by its own client, answered as the reference answers them in one order or the other (the first difference is shrunk to a minimal script)", Run: brExplore().run},
		{ID: "branchregistry/list-children-ids-apart", Clauses: []string{"I-STORE-20", "I-STORE-4"}, Level: spec.Must,
			Doc: "listChildren returns children whose ids differ only by case, trailing space or normal form once each, in whatever order the registry sorts them", Run: brChildrenIDsApart},
	}}
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
