package certify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/shard"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/spec"
)

// ReportKind is the "kind" of a certification report: what `report merge` dispatches on.
const ReportKind = "certify"

// inShard keeps the checks of s (by check id).
func inShard(checks []checkMeta, s shard.Shard) []checkMeta {
	var out []checkMeta
	for _, c := range checks {
		if s.Includes(c.id) {
			out = append(out, c)
		}
	}
	return out
}

// partOf says which part of a run a partial report is: "--run X", "--shard i/n" or both.
func partOf(r *Report) string {
	var parts []string
	if r.Options.Run != "" {
		parts = append(parts, "--run "+r.Options.Run)
	}
	if r.Shard != "" {
		parts = append(parts, "--shard "+r.Shard)
	}
	return strings.Join(parts, ", ")
}

// ReadReport reads a --report JSON document (unknown fields and trailing text are errors).
func ReadReport(data []byte) (*Report, error) {
	var r Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a certification report: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not a certification report: text after the document")
	}
	if r.Kind != ReportKind {
		return nil, fmt.Errorf("kind %q, want %q", r.Kind, ReportKind)
	}
	return &r, nil
}

// MergeReports merges the reports of every shard of one split (Config.Shard) into the report one
// whole run gives, and concludes it again with Conclude over the union (I-SHARD-2, I-SHARD-3):
// the checks in the order one run makes them (the bridge kit, the kinds in order, the fault kit;
// each kit's checks in kit order), the ledger as the shards applied it (each check's expected
// entry), the run-level problems once each, and the --run left-outs of one shard (every shard
// counts the same). The shards must be of one run: the same harness, target, handshake, kinds,
// options (pass every shard the same --seed) and seams; a missing or repeated shard, a check in
// the wrong shard or in two, and a check no kit of this harness holds are errors.
func MergeReports(reports []*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("no reports to merge")
	}
	base := reports[0]
	var shards []shard.Shard
	byIndex := map[int]*Report{}
	seen := shard.Seen{}
	var checks []CheckResult
	for i, r := range reports {
		if r.Kind != ReportKind {
			return nil, fmt.Errorf("report %d: kind %q, want %q", i+1, r.Kind, ReportKind)
		}
		if d := runDiff(base, r); d != "" {
			return nil, fmt.Errorf("report %d is of a different run than report 1: %s", i+1, d)
		}
		s, err := shard.Parse(r.Shard)
		if err != nil {
			return nil, fmt.Errorf("report %d: %v", i+1, err)
		}
		shards = append(shards, s)
		byIndex[s.Index] = r
		for _, c := range r.Checks {
			if err := seen.Claim(s, "check", c.ID, c.Kit+" "+c.ID); err != nil {
				return nil, fmt.Errorf("report %d: %v", i+1, err)
			}
			checks = append(checks, c)
		}
	}
	if err := shard.Complete(shards); err != nil {
		return nil, err
	}
	rank, err := checkOrder(base, checks)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(checks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return rank[idx[i]] < rank[idx[j]] })
	sorted := make([]CheckResult, len(checks))
	for i, k := range idx {
		sorted[i] = checks[k]
	}
	checks = sorted

	out := *base
	out.Shard, out.Checks, out.Problems, out.TargetError, out.Logs = "", checks, nil, "", ""
	out.Seams = slices.Clone(base.Seams)
	out.DurationMs = 0
	var logs []string
	now := base.Started
	ledger := &Ledger{File: base.Options.Ledger}
	for i := 1; i <= len(reports); i++ {
		r := byIndex[i]
		for _, p := range r.Problems {
			if !slices.Contains(out.Problems, p) {
				out.Problems = append(out.Problems, p)
			}
		}
		if out.TargetError == "" {
			out.TargetError = r.TargetError
		}
		if r.Logs != "" {
			logs = append(logs, fmt.Sprintf("--- shard %s ---\n%s", r.Shard, r.Logs))
		}
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if r.Started.After(now) {
			now = r.Started
		}
		out.DurationMs += r.DurationMs
		for _, c := range r.Checks {
			if c.Expected != nil {
				ledger.Entries = append(ledger.Entries, *c.Expected)
			}
		}
	}
	out.Logs = strings.Join(logs, "\n")
	var leftOut []spec.Level
	for range base.Summary.MustLeftOut {
		leftOut = append(leftOut, spec.Must)
	}
	for range base.Summary.LeftOut - base.Summary.MustLeftOut {
		leftOut = append(leftOut, spec.Should)
	}
	// Each shard judged its ledger entries with its own clock; the merge judges them once, at the
	// last shard's start.
	Conclude(&out, ledger, now, leftOut)
	return &out, nil
}

// runDiff says how b is of another run than a ("" when it is of the same run).
func runDiff(a, b *Report) string {
	ident := func(r *Report) []any {
		t := r.Target
		return []any{t.Kind, t.Spec, t.ImageID, t.RepoDigests}
	}
	seams := func(r *Report) []SeamVerdict {
		out := slices.Clone(r.Seams)
		for i := range out {
			out[i].Verdict = ""
		}
		return out
	}
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"harness", a.Tool, b.Tool}, {"spec versions", a.Spec, b.Spec}, {"profiles", a.Profiles, b.Profiles}, {"SPI versions", a.Spi, b.Spi},
		{"kinds", a.Kinds, b.Kinds}, {"target", ident(a), ident(b)}, {"handshake", a.Handshake, b.Handshake},
		{"options (pass every shard the same --seed)", a.Options, b.Options}, {"seams", seams(a), seams(b)},
		{"checks --run left out", [2]int{a.Summary.LeftOut, a.Summary.MustLeftOut}, [2]int{b.Summary.LeftOut, b.Summary.MustLeftOut}},
	} {
		if !reflect.DeepEqual(f.a, f.b) {
			return fmt.Sprintf("%s %v, want %v", f.name, jsonText(f.b), jsonText(f.a))
		}
	}
	return ""
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkOrder ranks each check (by its index in checks) in the order one run makes them: the
// bridge kit, then the kinds in r's order, then the fault kit; within a kit, the harness's
// registry order (Checks, then kits.Checks, which list each kit's checks in kit order).
func checkOrder(r *Report, checks []CheckResult) ([]int, error) {
	kitRank := map[string]int{bridgekit.Kit().Name: 0}
	for i, k := range r.Kinds {
		kitRank[k] = 1 + i
	}
	kitRank[FaultKit().Name] = 1 + len(r.Kinds)
	pos := map[string]int{}
	for _, c := range slices.Concat(Checks(), kits.Checks(), kernelkit.Kit().SpecChecks()) {
		if _, ok := pos[c.ID]; !ok {
			pos[c.ID] = len(pos)
		}
	}
	ranks := make([]int, len(checks))
	for i, c := range checks {
		kr, ok := kitRank[c.Kit]
		p, known := pos[c.ID]
		if !ok || !known {
			return nil, fmt.Errorf("check %s of kit %s is not a check this harness runs for kinds %v", c.ID, c.Kit, r.Kinds)
		}
		ranks[i] = kr*len(pos) + p
	}
	return ranks, nil
}
