package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/shard"
)

// ReportKind is the "kind" of a vectors JSON report: what `report merge` dispatches on.
const ReportKind = "vectors"

// Meta says what a run ran: reports whose Meta differs in anything but Shard are of different runs
// and do not merge.
type Meta struct {
	Shard   string // "i/n" for a --shard run, "" for a whole run
	Corpus  string // sha256 of the corpus's vectors (corpusDigest)
	Profile string // Config.Profile
	Run     string // Config.Run's expression
	Target  string // Config.Target: the fold under test
	Ledger  string // sha256 of the ledger ("" without one)
	Strict  bool   // Config.Strict: recommendations block
}

func metaOf(c Corpus, cfg Config) Meta {
	m := Meta{Shard: cfg.Shard.String(), Corpus: corpusDigest(c), Profile: cfg.Profile, Target: cfg.Target, Strict: cfg.Strict}
	if cfg.Run != nil {
		m.Run = cfg.Run.String()
	}
	if cfg.Ledger != nil {
		b, _ := json.Marshal(cfg.Ledger.Entries)
		m.Ledger = digest(b)
	}
	return m
}

// nothingJudged says the run fails for judging nothing (I-CERT-7); a shard's part may be empty
// (I-SHARD-2), so only a whole run fails for it.
func (r Report) nothingJudged() bool { return !r.Judged() && r.Meta.Shard == "" }

// corpusDigest names a corpus by content, whichever directory it was loaded from.
func corpusDigest(c Corpus) string {
	b, _ := json.Marshal(c.Vectors)
	return digest(b)
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// reportJSON is the --report shape (docs/vectors.md): what WriteJSON writes and MergeReports reads.
type reportJSON struct {
	Kind         string       `json:"kind"`
	Shard        string       `json:"shard,omitempty"`
	Corpus       string       `json:"corpus"`
	Profile      string       `json:"profile,omitempty"`
	Run          string       `json:"run,omitempty"`
	Target       string       `json:"target,omitempty"`
	Ledger       string       `json:"ledger,omitempty"`
	Strict       bool         `json:"strict,omitempty"`
	OK           bool         `json:"ok"`
	Pass         int          `json:"pass"`
	Fail         int          `json:"fail"`
	Unknown      int          `json:"unknown"`
	ExpectedFail int          `json:"expectedFail"`
	NotMet       int          `json:"recommendationsNotMet"`
	Excluded     int          `json:"excluded"`
	Judged       bool         `json:"judged"`
	Unresponsive string       `json:"unresponsive,omitempty"`
	LedgerErrors []string     `json:"ledgerErrors"`
	ElapsedMs    float64      `json:"elapsedMs"`
	Results      []resultJSON `json:"results"`
}

type resultJSON struct {
	Result
	DurationMs float64 `json:"durationMs"`
}

func (r Report) toJSON() reportJSON {
	c := r.Counts()
	m := r.Meta
	out := reportJSON{Kind: ReportKind, Shard: m.Shard, Corpus: m.Corpus, Profile: m.Profile, Run: m.Run, Target: m.Target, Ledger: m.Ledger,
		Strict: m.Strict, OK: r.OK(), Pass: c.Pass, Fail: c.Fail, Unknown: c.Unknown, ExpectedFail: c.ExpectedFail, NotMet: c.NotMet, Excluded: r.Excluded,
		Judged: r.Judged(), Unresponsive: r.Unresponsive, LedgerErrors: r.LedgerErrors, ElapsedMs: ms(r.Elapsed), Results: []resultJSON{}}
	if out.LedgerErrors == nil {
		out.LedgerErrors = []string{}
	}
	for _, x := range r.Results {
		out.Results = append(out.Results, resultJSON{x, ms(x.Duration)})
	}
	return out
}

// ReadReport reads a --report JSON document back (unknown fields are an error).
func ReadReport(data []byte) (Report, error) {
	var j reportJSON
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Report{}, fmt.Errorf("not a vectors report: %v", err)
	}
	if j.Kind != ReportKind {
		return Report{}, fmt.Errorf("kind %q, want %q", j.Kind, ReportKind)
	}
	r := Report{Excluded: j.Excluded, Unresponsive: j.Unresponsive, LedgerErrors: j.LedgerErrors,
		Elapsed: time.Duration(j.ElapsedMs * float64(time.Millisecond)),
		Meta:    Meta{Shard: j.Shard, Corpus: j.Corpus, Profile: j.Profile, Run: j.Run, Target: j.Target, Ledger: j.Ledger, Strict: j.Strict}}
	if len(r.LedgerErrors) == 0 {
		r.LedgerErrors = nil
	}
	for _, x := range j.Results {
		x.Result.Duration = time.Duration(x.DurationMs * float64(time.Millisecond))
		r.Results = append(r.Results, x.Result)
	}
	return r, nil
}

// MergeReports merges the reports of every shard of one split (Config.Shard) into the report one
// whole run gives: the results in corpus order (by file, as LoadFS reads them), the exclusions
// summed, the ledger problems joined, and the verdict (Report.OK) judged again over the union —
// so a split that judged nothing fails as one run would (I-SHARD-2). Reports of different corpora,
// profiles, --run expressions, folds or ledgers, missing or repeated shards and a vector in the
// wrong shard are errors.
func MergeReports(reports []Report) (Report, error) {
	if len(reports) == 0 {
		return Report{}, fmt.Errorf("no reports to merge")
	}
	var shards []shard.Shard
	seen := shard.Seen{}
	var out Report
	var unresponsive []string
	base := reports[0].Meta
	for i, r := range reports {
		if d := metaDiff(base, r.Meta); d != "" {
			return Report{}, fmt.Errorf("report %d is of a different run than report 1: %s", i+1, d)
		}
		s, err := shard.Parse(r.Meta.Shard)
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %v", i+1, err)
		}
		shards = append(shards, s)
		for _, x := range r.Results {
			if err := seen.Claim(s, "vector", x.ID, x.ID); err != nil {
				return Report{}, fmt.Errorf("report %d: %v", i+1, err)
			}
			out.Results = append(out.Results, x)
		}
		out.Excluded += r.Excluded
		out.LedgerErrors = append(out.LedgerErrors, r.LedgerErrors...)
		out.Elapsed += r.Elapsed
		if r.Unresponsive != "" {
			unresponsive = append(unresponsive, "shard "+r.Meta.Shard+": "+r.Unresponsive)
		}
	}
	if err := shard.Complete(shards); err != nil {
		return Report{}, err
	}
	sort.SliceStable(out.Results, func(i, j int) bool {
		a, b := out.Results[i], out.Results[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.ID < b.ID
	})
	sort.Strings(out.LedgerErrors)
	out.Unresponsive = strings.Join(unresponsive, "; ")
	out.Meta = base
	out.Meta.Shard = ""
	return out, nil
}

func metaDiff(a, b Meta) string {
	var d []string
	for _, f := range []struct{ name, a, b string }{
		{"corpus", a.Corpus, b.Corpus}, {"profile", a.Profile, b.Profile}, {"run", a.Run, b.Run},
		{"target", a.Target, b.Target}, {"ledger", a.Ledger, b.Ledger}, {"strict", fmt.Sprint(a.Strict), fmt.Sprint(b.Strict)},
	} {
		if f.a != f.b {
			d = append(d, fmt.Sprintf("%s %q, want %q", f.name, f.b, f.a))
		}
	}
	return strings.Join(d, ", ")
}
