package kits

import (
	"context"

	"github.com/loom-kernel/loom-conform/kits/explore"
)

// ExploreRounds runs c.Explore scripts made by gen through replay, as every exploration check
// does: the first required disagreement, shrunk to a minimal script, is the check's failure (a
// FindingError, whose text ends with the script); a recommended one (citing choices only) is
// reported when no required one is found. A kit outside this package (the kernel kit) uses it so
// that its findings are read, written and replayed as the stores' are.
func ExploreRounds[T any](ctx context.Context, c *Case[T], replay explore.Replay, gen func(round int) explore.Script) error {
	return exploreRounds(ctx, c, replay, gen)
}

// WireValues are the round-trip corpus's payloads (hardValues) that a JSON-RPC body carries as
// they are: every number a double holds (I-NET-6), so a kernel over the wire must keep each
// value-exact.
func WireValues() []string {
	var out []string
	for _, v := range hardValues() {
		out = append(out, v.payload)
	}
	return out
}

// Explored reports f, a shrunk disagreement found by c's exploration, as the check's failure: a
// violation of the clauses its mismatch cites, whose text ends with the minimal script.
func Explored[T any](c *Case[T], f explore.Finding) error { return explored(c, f) }
