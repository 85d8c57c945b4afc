package fitness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// HTMLPage is the report as the HTML page (reportview.WriteHTML, --html) and `report matrix` show
// it; command is how reproduce lines name this binary. A gate that is not pass
// (fail, unknown, pending) keeps the run from passing.
func (r Report) HTMLPage(command string) reportview.Page {
	p := reportview.Page{Title: "loom fitness gates", Kind: ReportKind, Subject: "spec §10", Verdict: "pass", Tone: reportview.Good,
		Tool: "loom-conform", Counts: fmt.Sprintf("%d pass, %d fail, %d unknown, %d pending",
			r.Summary[string(Pass)], r.Summary[string(Fail)], r.Summary[string(Unknown)], r.Summary[string(Pending)])}
	notPass := len(r.Results) - r.Summary[string(Pass)]
	p.Headline = fmt.Sprintf("PASS: every one of %d gates", len(r.Results))
	if r.Subset() != "" {
		p.Headline = "PASS: every gate run" + r.Subset()
	}
	switch {
	case r.Failed:
		p.Verdict, p.Tone, p.Headline = "fail", reportview.Bad, fmt.Sprintf("FAIL: %d gate(s) failed", r.Summary[string(Fail)])
	case notPass > 0:
		p.Verdict, p.Tone, p.Headline = "unknown", reportview.Warn, fmt.Sprintf("NOT PASSED: %d gate(s) without a verdict", notPass)
	}
	if r.Shard != "" {
		p.Headline += " — shard " + r.Shard + " only"
	}
	if r.Subset() != "" && p.Verdict != "pass" {
		p.Headline += r.Subset()
	}
	p.Counts += r.Subset()
	for _, x := range r.Results {
		group, _, _ := strings.Cut(x.Gate, "/")
		msg := x.Detail
		if x.Figure != "" || x.Threshold != "" {
			msg = strings.TrimSpace(fmt.Sprintf("figure %s, threshold %s\n%s", dash(x.Figure), x.Threshold, x.Detail))
		}
		it := reportview.Item{ID: x.Gate, Group: group, Verdict: string(x.Verdict), Clauses: x.Clauses,
			Requirement: x.binds(), Message: msg, Blocking: x.Verdict != Pass, DurationMs: x.Seconds * 1000,
			Repro: fmt.Sprintf("%s fitness --run %s", command, shq.Quote("^"+regexp.QuoteMeta(x.Gate)+"$"))}
		if a, ok := x.failedAssertion(); ok {
			it.Failed = []string{a.Label()}
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// failedAssertion is the comparison a failed gate broke: its threshold, citing the gate's clauses.
func (x Result) failedAssertion() (kits.FailedAssertion, bool) {
	if x.Verdict != Fail {
		return kits.FailedAssertion{}, false
	}
	return kits.NewFailedAssertion(spec.Must, x.Gate, x.Clauses), true
}

// binds is how the gate's result binds: a failure as its failing assertion does (kits.Binding),
// another verdict as its clauses do.
func (x Result) binds() spec.Requirement {
	v, failed := kits.Pass, []kits.FailedAssertion(nil)
	if a, ok := x.failedAssertion(); ok {
		v, failed = kits.Fail, []kits.FailedAssertion{a}
	}
	return kits.Binding(spec.Must, x.Clauses, v, failed)
}
