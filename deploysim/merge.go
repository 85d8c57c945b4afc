package deploysim

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/loom-kernel/loom-conform/internal/shard"
)

// ReportKind is the "kind" of the `deploysim --json` report: what `report merge` dispatches on.
const ReportKind = "deploysim"

// Report is the `deploysim --json` document: what was asked (scenarios, seeds First..First+Seeds-1,
// workers, the shard) and every run's result, scenario by scenario, seed by seed.
type Report struct {
	Kind      string   `json:"kind"`
	Shard     string   `json:"shard,omitempty"`
	Scenarios []string `json:"scenarios"`
	First     int64    `json:"first"`
	Seeds     int      `json:"seeds"`
	Workers   int      `json:"workers"`
	Failed    int      `json:"failed"`
	Runs      []Result `json:"runs"`
}

// SeedInShard reports whether seed belongs to s: seeds are split by their decimal string, so one
// seed's runs of every scenario land in the same shard.
func SeedInShard(s shard.Shard, seed int64) bool { return s.Includes(strconv.FormatInt(seed, 10)) }

// NewReport is the report of runs asked for with these scenarios, seeds and workers in shard s.
func NewReport(s shard.Shard, scenarios []string, first int64, seeds, workers int, runs []Result) Report {
	r := Report{Kind: ReportKind, Shard: s.String(), Scenarios: scenarios, First: first, Seeds: seeds, Workers: workers, Runs: runs}
	return r.tally()
}

func (r Report) tally() Report {
	if r.Runs == nil {
		r.Runs = []Result{}
	}
	r.Failed = 0
	for _, x := range r.Runs {
		if !x.OK() {
			r.Failed++
		}
	}
	return r
}

// MergeReports merges the reports of every shard of one split into the report one whole run gives:
// every run in the order one run makes them (scenario order, then seed), failures counted again.
// Reports of different scenarios, seed ranges or fleet sizes, missing or repeated shards, a seed in
// the wrong shard, a run twice or a run missing are errors.
func MergeReports(reports []Report) (Report, error) {
	if len(reports) == 0 {
		return Report{}, fmt.Errorf("no reports to merge")
	}
	base := reports[0]
	var shards []shard.Shard
	type key struct {
		scenario string
		seed     int64
	}
	seen := map[key]bool{}
	var runs []Result
	for i, r := range reports {
		switch {
		case r.Kind != ReportKind:
			return Report{}, fmt.Errorf("report %d: kind %q, want %q", i+1, r.Kind, ReportKind)
		case !slices.Equal(r.Scenarios, base.Scenarios):
			return Report{}, fmt.Errorf("report %d ran scenarios %v, report 1 ran %v", i+1, r.Scenarios, base.Scenarios)
		case r.First != base.First || r.Seeds != base.Seeds:
			return Report{}, fmt.Errorf("report %d ran %d seeds from %d, report 1 ran %d from %d", i+1, r.Seeds, r.First, base.Seeds, base.First)
		case r.Workers != base.Workers:
			return Report{}, fmt.Errorf("report %d ran %d workers, report 1 ran %d", i+1, r.Workers, base.Workers)
		}
		s, err := shard.Parse(r.Shard)
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %v", i+1, err)
		}
		shards = append(shards, s)
		for _, x := range r.Runs {
			k := key{x.Scenario, x.Seed}
			switch {
			case !slices.Contains(base.Scenarios, x.Scenario) || x.Seed < base.First || x.Seed >= base.First+int64(base.Seeds):
				return Report{}, fmt.Errorf("report %d: run %s seed %d was not asked for", i+1, x.Scenario, x.Seed)
			case !SeedInShard(s, x.Seed):
				return Report{}, fmt.Errorf("report %d: seed %d does not belong to shard %s", i+1, x.Seed, s)
			case seen[k]:
				return Report{}, fmt.Errorf("report %d: run %s seed %d is in two reports", i+1, x.Scenario, x.Seed)
			}
			seen[k] = true
			runs = append(runs, x)
		}
	}
	if err := shard.Complete(shards); err != nil {
		return Report{}, err
	}
	if want := len(base.Scenarios) * base.Seeds; len(runs) != want {
		return Report{}, fmt.Errorf("the shards hold %d runs, want %d (%d scenarios × %d seeds)", len(runs), want, len(base.Scenarios), base.Seeds)
	}
	order := map[string]int{}
	for i, s := range base.Scenarios {
		order[s] = i
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if a, b := order[runs[i].Scenario], order[runs[j].Scenario]; a != b {
			return a < b
		}
		return runs[i].Seed < runs[j].Seed
	})
	out := base
	out.Shard, out.Runs = "", runs
	return out.tally(), nil
}
