package deploysim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/shard"
)

// runShard runs seeds first..first+n-1 of every scenario in s, as the verb does, and returns the
// report through its JSON form (what report merge reads).
func runShard(t *testing.T, s shard.Shard, scenarios []string, first int64, n int, b Broken) Report {
	t.Helper()
	var runs []Result
	for _, sc := range scenarios {
		for seed := first; seed < first+int64(n); seed++ {
			if SeedInShard(s, seed) {
				runs = append(runs, Run(Config{Scenario: sc, Seed: seed, Workers: 3, Broken: b}))
			}
		}
	}
	raw, err := json.Marshal(NewReport(s, scenarios, first, n, 3, runs))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

// Reference: spec §10, I-SHARD-1..3 — sharded deploy simulations (split by seed) merge into the
// report one run gives, for a correct fleet and a broken one; a merge refuses what is not one split
// of one run.
func TestShardsMergeIntoOneRun(t *testing.T) {
	bf := brokenFleets()[0]
	cases := []struct {
		name      string
		scenarios []string
		broken    Broken
		failed    bool
	}{
		{"correct fleet", []string{"crash", "zombie"}, Broken{}, false},
		{"broken fleet " + bf.Name, []string{bf.Scenario}, bf.Broken, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			one := runShard(t, shard.Shard{}, tc.scenarios, 5, 6, tc.broken)
			var parts []Report
			for i := 1; i <= 3; i++ {
				parts = append(parts, runShard(t, shard.Shard{Index: i, Count: 3}, tc.scenarios, 5, 6, tc.broken))
			}
			merged, err := MergeReports(parts)
			if err != nil {
				t.Fatalf("MergeReports(3 shards) = %v", err)
			}
			if diff := cmp.Diff(one, merged); diff != "" {
				t.Errorf("MergeReports(3 shards) differs from one run (-want +got):\n%s", diff)
			}
			if (merged.Failed > 0) != tc.failed {
				t.Errorf("merged: %d of %d runs failed, want failures %v", merged.Failed, len(merged.Runs), tc.failed)
			}
		})
	}

	sc := []string{"basic"}
	p := func(i int) Report { return runShard(t, shard.Shard{Index: i, Count: 3}, sc, 1, 6, Broken{}) }
	p1, p2, p3 := p(1), p(2), p(3)
	moved := p2
	moved.Runs = append(append([]Result{}, p2.Runs...), p1.Runs[0])
	dropped := p2
	dropped.Runs = p2.Runs[1:]
	for _, bad := range []struct {
		name, want string
		reps       []Report
	}{
		{"a shard missing", "3/3", []Report{p1, p2}},
		{"a shard twice", "two reports", []Report{p1, p2, p2, p3}},
		{"other seeds", "seeds", []Report{p1, runShard(t, shard.Shard{Index: 2, Count: 3}, sc, 1, 7, Broken{}), p3}},
		{"another fleet size", "workers", []Report{p1, func() Report { r := p2; r.Workers = 4; return r }(), p3}},
		{"a seed in the wrong shard", "does not belong", []Report{p1, moved, p3}},
		{"a run dropped", "want 6", []Report{p1, dropped, p3}},
		{"a whole run", "not a shard", []Report{runShard(t, shard.Shard{}, sc, 1, 6, Broken{})}},
	} {
		if _, err := MergeReports(bad.reps); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("MergeReports(%s) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}
