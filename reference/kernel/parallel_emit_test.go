package kernel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/spi"
)

// parallelEmitTail runs worked-example-6's shape inside a parallel: v1 is
// parallel{A: emit X}{B: emit X}; emit X; suspend — one stamped X in segment 0. Before the resume
// v2 gives branch A a live step before its emit, and the branches run in the order aFirst forces.
// It returns what the re-run appended, as "TYPE payload metadata" sorted (the order of appends
// inside a parallel is timing by nature; their content must not be).
func parallelEmitTail(t *testing.T, aFirst bool, hooks Hooks) []string {
	t.Helper()
	h := newHarness(t, func(c *Config) { c.Hooks = hooks })
	x := map[string]int{"v": 1}
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Parallel(
			func(b *Context) (any, error) { return nil, b.Emit("X", x) },
			func(b *Context) (any, error) { return nil, b.Emit("X", x) }); err != nil {
			return nil, err
		}
		if err := c.Emit("X", x); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "g"})
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	before := len(h.log("x"))
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		aDone, bDone := make(chan struct{}), make(chan struct{})
		if _, err := c.Parallel(
			func(b *Context) (any, error) {
				defer close(aDone)
				if !aFirst {
					<-bDone
				}
				if _, err := b.Run("Z", h.effect("Z", 1), nil); err != nil {
					return nil, err
				}
				return nil, b.Emit("X", x)
			},
			func(b *Context) (any, error) {
				defer close(bDone)
				if aFirst {
					<-aDone
				}
				return nil, b.Emit("X", x)
			}); err != nil {
			return nil, err
		}
		if err := c.Emit("X", x); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "g"})
	})
	h.ok(h.rt.Resume(ctx, "x", "g", json.RawMessage(`{"ok":true}`)))
	return contentOf(h.log("x")[before:])
}

func contentOf(evs []spi.Envelope) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.EventType+" "+string(e.Payload)+" "+string(e.Metadata))
	}
	slices.Sort(out)
	return out
}

// Reference: spec §3 "Never timing" with I-KERNEL-18 — inside a parallel the per-digest emit
// count n is the branch's own (the count when the parallel began plus its own emits), so the same
// code over the same log appends the same emits whichever branch runs first.
func TestParallelEmitServingOrderIndependent(t *testing.T) {
	clauses := []string{"S3.emit.never-timing", "S3.emit.serve-skip", "S3.emit.serve-append", "I-KERNEL-18"}
	aFirst, bFirst := parallelEmitTail(t, true, Hooks{}), parallelEmitTail(t, false, Hooks{})
	if d := cmp.Diff(aFirst, bFirst); d != "" {
		t.Errorf("kernel/parallel-emit-order %v: re-run appends, A first vs B first (-A first +B first):\n%s", clauses, d)
	}
	// Branch A ran live work, so its X is appended (unstamped: a parallel of two branches); branch
	// B's X is the first of its branch and the log holds one stamped X, so it is served; the
	// sequential X after the join is the third of the run and is appended stamped.
	if n := len(slices.DeleteFunc(slices.Clone(aFirst), func(l string) bool { return !strings.HasPrefix(l, "X ") })); n != 2 {
		failf(t, "kernel/parallel-emit-order", clauses, "appended X on the re-run", n, 2)
	}
	// The shared-count mutant (the defect this test pins) must be seen by the same comparison.
	if d := cmp.Diff(parallelEmitTail(t, true, Hooks{SharedParallelEmitCount: true}),
		parallelEmitTail(t, false, Hooks{SharedParallelEmitCount: true})); d == "" {
		t.Errorf("kernel/parallel-emit-order %v: SharedParallelEmitCount mutant = same appends in both orders, want a difference (the test would be vacuous)", clauses)
	}
}

// Reference: I-KERNEL-18 — a branch's causal past includes the live work of a parallel it ran
// itself: live work in a nested branch makes the enclosing branch's later emit append, exactly as
// live work run directly in that branch does.
func TestNestedParallelLiveWorkReachesBranch(t *testing.T) {
	clauses := []string{"S3.emit.serve-append", "I-KERNEL-18"}
	x := map[string]int{"v": 1}
	rerun := func(nested bool) []string {
		h := newHarness(t, nil)
		h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
			if _, err := c.Parallel(func(b *Context) (any, error) { return nil, b.Emit("X", x) },
				func(*Context) (any, error) { return nil, nil }); err != nil {
				return nil, err
			}
			if err := c.Emit("X", x); err != nil {
				return nil, err
			}
			return c.Suspend(SuspendConfig{On: "g"})
		})
		ctx := testCtx(t)
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		before := len(h.log("x"))
		h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
			if _, err := c.Parallel(func(b *Context) (any, error) {
				var err error
				if nested {
					_, err = b.Parallel(func(n *Context) (any, error) { return n.Run("Z", h.effect("Z", 1), nil) },
						func(*Context) (any, error) { return nil, nil })
				} else {
					_, err = b.Run("Z", h.effect("Z", 1), nil)
				}
				if err != nil {
					return nil, err
				}
				return nil, b.Emit("X", x)
			}, func(*Context) (any, error) { return nil, nil }); err != nil {
				return nil, err
			}
			if err := c.Emit("X", x); err != nil {
				return nil, err
			}
			return c.Suspend(SuspendConfig{On: "g"})
		})
		h.ok(h.rt.Resume(ctx, "x", "g", nil))
		return emitsOf(h.log("x")[before:], "X")
	}
	flat, nested := rerun(false), rerun(true)
	if d := cmp.Diff(flat, nested); d != "" || len(flat) != 2 {
		failf(t, "kernel/nested-parallel-live", clauses, "X appended on the re-run, live step direct vs nested (-direct +nested)", d+fmt.Sprint(flat), "no difference, two copies")
	}
}
