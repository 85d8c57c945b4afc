package goldens

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/internal/shard"
)

// ReportKind is the "kind" of the `goldens check --json` report: what `report merge` dispatches on.
const ReportKind = "goldens"

// Report is the `goldens check --json` document: what was checked (the corpus by content, the
// --run expression, whether the G2 re-runs ran, the shard) and each golden's result.
type Report struct {
	Kind   string `json:"kind"`
	Shard  string `json:"shard,omitempty"`
	Corpus string `json:"corpus"`
	Run    string `json:"run,omitempty"`
	NoG2   bool   `json:"noG2,omitempty"`
	// Goldens is how many goldens the corpus holds: Checked is fewer when --run or --shard left
	// some out.
	Goldens int      `json:"goldens"`
	Checked int      `json:"checked"`
	Failed  int      `json:"failed"`
	Results []Result `json:"results"`
}

// NewReport is the report of a Check over corpus with o (o.Shard included).
func NewReport(corpus []*Golden, o CheckOptions, results []Result) Report {
	r := Report{Kind: ReportKind, Shard: o.Shard.String(), Corpus: CorpusDigest(corpus), NoG2: o.NoG2, Goldens: len(corpus), Results: results}
	if o.Run != nil {
		r.Run = o.Run.String()
	}
	return r.tally()
}

func (r Report) tally() Report {
	r.Checked, r.Failed = len(r.Results), 0
	if r.Results == nil {
		r.Results = []Result{}
	}
	for _, x := range r.Results {
		if x.Failed() {
			r.Failed++
		}
	}
	return r
}

// CorpusDigest names a corpus by content (scripts, drivers, recorded logs, states and results),
// whichever directory it was loaded from.
func CorpusDigest(corpus []*Golden) string {
	h := sha256.New()
	for _, g := range corpus {
		b, _ := json.Marshal([]any{g.Name, g.Script, g.Driver, g.Log, string(g.State), g.Recorded, g.Unrecorded})
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MergeReports merges the reports of every shard of one split (CheckOptions.Shard) into the report
// one whole run gives: every golden's result in corpus (name) order, tallied again. Reports of
// different corpora, --run expressions or G2 settings, missing or repeated shards, a golden in the
// wrong shard or in two, and a split that checked no golden at all (one run refuses that as bad
// input) are errors.
func MergeReports(reports []Report) (Report, error) {
	if len(reports) == 0 {
		return Report{}, fmt.Errorf("no reports to merge")
	}
	base := reports[0]
	var shards []shard.Shard
	seen := shard.Seen{}
	var results []Result
	for i, r := range reports {
		if r.Kind != ReportKind {
			return Report{}, fmt.Errorf("report %d: kind %q, want %q", i+1, r.Kind, ReportKind)
		}
		switch {
		case r.Corpus != base.Corpus:
			return Report{}, fmt.Errorf("report %d checked another corpus than report 1 (%s, want %s)", i+1, r.Corpus, base.Corpus)
		case r.Run != base.Run:
			return Report{}, fmt.Errorf("report %d ran --run %q, report 1 ran %q", i+1, r.Run, base.Run)
		case r.NoG2 != base.NoG2:
			return Report{}, fmt.Errorf("report %d has noG2 %v, report 1 %v", i+1, r.NoG2, base.NoG2)
		}
		s, err := shard.Parse(r.Shard)
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %v", i+1, err)
		}
		shards = append(shards, s)
		for _, x := range r.Results {
			if err := seen.Claim(s, "golden", x.Name, x.Name); err != nil {
				return Report{}, fmt.Errorf("report %d: %v", i+1, err)
			}
			results = append(results, x)
		}
	}
	if err := shard.Complete(shards); err != nil {
		return Report{}, err
	}
	if len(results) == 0 {
		return Report{}, fmt.Errorf("no shard checked a golden (--run %q matches none)", base.Run)
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].Name < results[j].Name })
	out := base
	out.Shard, out.Results = "", results
	return out.tally(), nil
}

// Subset says, when --run left goldens out, that the run is a subset and of what (I-CERT-32):
// " (3 of 60 goldens, selected by --run X)"; "" for a whole corpus.
func (r Report) Subset() string {
	if r.Run == "" || r.Goldens == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d goldens, selected by --run %s)", r.Checked, r.Goldens, r.Run)
}
