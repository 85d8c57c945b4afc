package fitness

import (
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/shard"
)

// Shard returns the gates of s (by gate id; the whole list for the zero Shard).
func Shard(gates []Gate, s shard.Shard) []Gate {
	var out []Gate
	for _, g := range gates {
		if s.Includes(g.ID) {
			out = append(out, g)
		}
	}
	return out
}

// MergeReports merges the reports of every shard of one split into the report one whole run gives:
// each shard's results, in registry order, tallied again. Missing, repeated or foreign shards, and
// a gate reported twice, are errors.
func MergeReports(reports []Report, gates []Gate) (Report, error) {
	var shards []shard.Shard
	byGate := map[string]Result{}
	seen := shard.Seen{}
	for i, r := range reports {
		if r.Kind != ReportKind {
			return Report{}, fmt.Errorf("report %d: kind %q, want %q", i+1, r.Kind, ReportKind)
		}
		s, err := shard.Parse(r.Shard)
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %v", i+1, err)
		}
		shards = append(shards, s)
		for _, x := range r.Results {
			if err := seen.Claim(s, "gate", x.Gate, x.Gate); err != nil {
				return Report{}, fmt.Errorf("report %d: %v", i+1, err)
			}
			byGate[x.Gate] = x
		}
	}
	if err := shard.Complete(shards); err != nil {
		return Report{}, err
	}
	var out []Result
	var unknown []string
	for _, g := range gates {
		if x, ok := byGate[g.ID]; ok {
			out = append(out, x)
			delete(byGate, g.ID)
		}
	}
	for id := range byGate {
		unknown = append(unknown, id)
	}
	if len(unknown) > 0 {
		return Report{}, fmt.Errorf("gates no registry holds: %s", strings.Join(unknown, ", "))
	}
	merged := NewReport(out)
	merged.Run, merged.Registered = reports[0].Run, reports[0].Registered
	return merged, nil
}
