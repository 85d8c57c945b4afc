package kits_test

import (
	"context"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// TestExecIDsNeverMeet runs one check many times with one seed, spread over a second, as many runs
// of certify against one long-lived target are: no two cases may be given the same execution id. The
// ids once took 16 bits of the clock in microseconds, which repeat every 67 ms: a kernel served
// across runs answered a check's own execution.start "exists" about once in 25 runs
// (kernel/fencing/execution.complete), and over this spread two of the runs meet with a
// probability above 99.9 %.
func TestExecIDsNeverMeet(t *testing.T) {
	seen := map[string]int{}
	kit := kits.Kit[int]{Name: "ids", Checks: []kits.Check[int]{{ID: "ids/one", Level: spec.Must, Run: func(_ context.Context, c *kits.Case[int]) error {
		seen[c.ExecID("fence")]++
		return nil
	}}}}
	factory := func(context.Context) (int, func(), error) { return 0, nil, nil }
	const runs = 1000
	for range runs {
		time.Sleep(time.Millisecond)
		if _, err := kits.Run(context.Background(), kit, factory, kits.Options{Seed: 1, Timeout: time.Minute, SpiVersion: "1.0.0"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != runs {
		for id, n := range seen {
			if n > 1 {
				t.Errorf("ExecID(%q) = %s in %d cases, want one case each", "fence", id, n)
			}
		}
	}
}
