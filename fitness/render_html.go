package fitness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/shq"
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
		p.Items = append(p.Items, reportview.Item{ID: x.Gate, Group: group, Verdict: string(x.Verdict), Clauses: x.Clauses,
			Requirement: spec.RequirementOf(x.Clauses), Message: msg, Blocking: x.Verdict != Pass, DurationMs: x.Seconds * 1000,
			Repro: fmt.Sprintf("%s fitness --run %s", command, shq.Quote("^"+regexp.QuoteMeta(x.Gate)+"$"))})
	}
	return p
}
