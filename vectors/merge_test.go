package vectors

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/shard"
)

// shardRun runs c against f as n shards, each report through its JSON form and back (what
// `report merge` reads).
func shardRun(t *testing.T, c Corpus, f Folder, cfg Config, n int) []Report {
	t.Helper()
	var out []Report
	for i := 1; i <= n; i++ {
		cfg.Shard = shard.Shard{Index: i, Count: n}
		r := Run(context.Background(), c, f, cfg)
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		back, err := ReadReport(b.Bytes())
		if err != nil {
			t.Fatalf("ReadReport(shard %d/%d) = %v", i, n, err)
		}
		out = append(out, back)
	}
	return out
}

// untimed is a report's JSON form without its timings.
func untimed(r Report) reportJSON {
	j := r.toJSON()
	j.ElapsedMs = 0
	for i := range j.Results {
		j.Results[i].DurationMs, j.Results[i].Duration = 0, 0
	}
	return j
}

// Sharded runs merge into the report one run gives — results, counts, ledger problems and verdict —
// for a passing fold and for a broken one with a ledger that is partly untrue; a shard that passes
// says it is a shard; and a merge refuses what is not one split of one run.
func TestShardsMergeIntoOneRun(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	broken := brokenFolders()["fold/vectors/stops-at-1.22"]
	whole := Run(context.Background(), c, broken, Config{})
	failing := whole.Failing(Fail)
	if len(failing) < 2 {
		t.Fatalf("stops-at-1.22 fails %d vectors, want ≥ 2 for this test", len(failing))
	}
	ledger := &Ledger{Entries: []LedgerEntry{{Check: failing[0], Reason: "known"}, {Check: "fold/basic/started", Reason: "untrue"},
		{Check: "no/such/vector", Reason: "untrue"}}}
	cases := []struct {
		name string
		f    Folder
		cfg  Config
		ok   bool
	}{
		{"reference", Reference{}, Config{}, true},
		{"broken fold with ledger", broken, Config{Ledger: ledger}, false},
		{"nothing selected", Reference{}, Config{Run: regexp.MustCompile("^no-such-vector$")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			one := Run(context.Background(), c, tc.f, tc.cfg)
			parts := shardRun(t, c, tc.f, tc.cfg, 3)
			merged, err := MergeReports(parts)
			if err != nil {
				t.Fatalf("MergeReports(3 shards) = %v", err)
			}
			if diff := cmp.Diff(untimed(one), untimed(merged)); diff != "" {
				t.Errorf("MergeReports(3 shards) differs from one run (-want +got):\n%s", diff)
			}
			if merged.OK() != tc.ok || one.OK() != tc.ok {
				t.Errorf("OK() = merged %v, one run %v; want %v", merged.OK(), one.OK(), tc.ok)
			}
		})
	}

	parts := shardRun(t, c, Reference{}, Config{}, 3)
	var text bytes.Buffer
	_ = parts[0].Render(&text)
	if !strings.Contains(text.String(), "shard 1/3 only") {
		t.Errorf("Render(shard 1/3) does not say it is a shard:\n%s", text.String())
	}
	other := shardRun(t, c, Reference{}, Config{Profile: "1.26.0"}, 3)
	moved := parts[1]
	moved.Results = append([]Result{}, moved.Results...)
	moved.Results = append(moved.Results, parts[0].Results[0])
	wholeRun := Run(context.Background(), c, Reference{}, Config{})
	for _, bad := range []struct {
		name, want string
		reps       []Report
	}{
		{"a shard missing", "2/3", []Report{parts[0], parts[2]}},
		{"a shard twice", "two shards", []Report{parts[0], parts[1], parts[1], parts[2]}},
		{"another profile", "profile", []Report{parts[0], other[1], parts[2]}},
		{"a vector in the wrong shard", "does not belong", []Report{parts[0], moved, parts[2]}},
		{"a whole run", "not a shard", []Report{wholeRun}},
		{"nothing", "no reports", nil},
	} {
		if _, err := MergeReports(bad.reps); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("MergeReports(%s) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}
