package goldens

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/internal/shard"
)

// untimed is r through its JSON form (what report merge reads) with every golden's time zeroed.
func untimed(t *testing.T, r Report) Report {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := range back.Results {
		back.Results[i].Millis = 0
	}
	return back
}

// Reference: spec §10, I-SHARD-1..3 — sharded goldens checks merge into the report one run gives, on
// the reference kernel and on a kernel mutant that fails some goldens; a merge refuses what is not
// one split of one run.
func TestShardsMergeIntoOneRun(t *testing.T) {
	corpus := loadCorpus(t)
	var broken CheckOptions
	for _, m := range HookMutants() {
		if _, outside := outsideFlowScripts[m.ID]; !outside {
			broken = CheckOptions{Config: m.Config, NoG2: true}
			break
		}
	}
	if broken.Config == nil {
		t.Fatal("no kernel Hooks mutant that goldens catch, want one for this test")
	}
	cases := []struct {
		name   string
		o      CheckOptions
		failed bool
	}{{"reference", CheckOptions{NoG2: true}, false}, {"kernel mutant", broken, true}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			one := NewReport(corpus, tc.o, Check(context.Background(), corpus, tc.o))
			var parts []Report
			for i := 1; i <= 3; i++ {
				o := tc.o
				o.Shard = shard.Shard{Index: i, Count: 3}
				parts = append(parts, untimed(t, NewReport(corpus, o, Check(context.Background(), corpus, o))))
			}
			merged, err := MergeReports(parts)
			if err != nil {
				t.Fatalf("MergeReports(3 shards) = %v", err)
			}
			if diff := cmp.Diff(untimed(t, one), untimed(t, merged)); diff != "" {
				t.Errorf("MergeReports(3 shards) differs from one run (-want +got):\n%s", diff)
			}
			if (merged.Failed > 0) != tc.failed || merged.Checked != len(corpus) {
				t.Errorf("merged: %d of %d failed, want failures %v over %d goldens", merged.Failed, merged.Checked, tc.failed, len(corpus))
			}
		})
	}

	o := CheckOptions{NoG2: true, Run: regexp.MustCompile("^(suspend-resume|profile-1-20)$")}
	part := func(o CheckOptions, i int) Report {
		o.Shard = shard.Shard{Index: i, Count: 3}
		return NewReport(corpus, o, Check(context.Background(), corpus, o))
	}
	p1, p2, p3 := part(o, 1), part(o, 2), part(o, 3)
	g2 := o
	g2.NoG2 = false
	moved := p2
	moved.Results = append(append([]Result{}, p2.Results...), Result{Name: firstNotIn(t, corpus, 2), Verdict: "pass"})
	none := CheckOptions{NoG2: true, Run: regexp.MustCompile("^no-such-golden$")}
	for _, bad := range []struct {
		name, want string
		reps       []Report
	}{
		{"a shard missing", "2/3", []Report{p1, p3}},
		{"another G2 setting", "noG2", []Report{p1, part(g2, 2), p3}},
		{"another corpus", "corpus", []Report{p1, NewReport(corpus[1:], o, p2.Results), p3}},
		{"a golden in the wrong shard", "does not belong", []Report{p1, moved, p3}},
		{"a split that checked nothing", "matches none", []Report{part(none, 1), part(none, 2), part(none, 3)}},
		{"a whole run", "not a shard", []Report{NewReport(corpus, o, nil)}},
	} {
		if _, err := MergeReports(bad.reps); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("MergeReports(%s) = %v, want an error saying %q", bad.name, err, bad.want)
		}
	}
}

// firstNotIn names a golden that is not in shard i of 3.
func firstNotIn(t *testing.T, corpus []*Golden, i int) string {
	for _, g := range corpus {
		if !(shard.Shard{Index: i, Count: 3}).Includes(g.Name) {
			return g.Name
		}
	}
	t.Fatal("every golden is in one shard")
	return ""
}
