package vectors

import (
	"fmt"
	"regexp"

	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/shq"
)

// HTMLPage is the run as the HTML page (reportview.WriteHTML, --html) and `report matrix` show it;
// command is how reproduce lines name this binary.
func (r Report) HTMLPage(command string) reportview.Page {
	c := r.Counts()
	target := r.Meta.Target
	if target == "" {
		target = "reference"
	}
	p := reportview.Page{Title: "loom fold vectors", Kind: ReportKind, Subject: target, Verdict: "pass", Tone: reportview.Good,
		Headline: "PASS: " + r.selected(), Tool: "loom-conform",
		Counts: fmt.Sprintf("%d pass, %d fail, %d unknown, %d expected failures; %d left out", c.Pass, c.Fail, c.Unknown, c.ExpectedFail, r.Excluded)}
	if !r.OK() {
		p.Verdict, p.Tone = "fail", reportview.Bad
		p.Headline = fmt.Sprintf("FAIL: %d failed, %d unknown, %d ledger error(s)", c.blocking(r.Meta.Strict), c.Unknown, len(r.LedgerErrors))
		if !r.Judged() {
			p.Headline = "FAIL: nothing was judged (I-CERT-7)"
		}
	}
	if c.NotMet > 0 {
		p.Headline += r.notMetLine()
		if r.OK() {
			p.Tone = reportview.Warn
		}
	}
	if r.Meta.Shard != "" {
		p.Headline += " — shard " + r.Meta.Shard + " only"
	} else if r.Excluded > 0 && !r.OK() {
		p.Headline += " — " + r.selected()
	}
	p.Facts = []reportview.Fact{{Name: "fold", Value: target}, {Name: "corpus", Value: r.Meta.Corpus}}
	if r.Meta.Strict {
		p.Facts = append(p.Facts, reportview.Fact{Name: "--strict", Value: "recommendations block"})
	}
	for _, f := range []reportview.Fact{{Name: "profile", Value: r.Meta.Profile}, {Name: "--run", Value: r.Meta.Run}, {Name: "ledger", Value: r.Meta.Ledger}} {
		if f.Value != "" {
			p.Facts = append(p.Facts, f)
		}
	}
	if r.Unresponsive != "" {
		p.Problems = append(p.Problems, "unresponsive fold: "+r.Unresponsive)
	}
	p.Problems = append(p.Problems, r.LedgerErrors...)
	exec := ""
	if target != "reference" {
		exec = " --exec " + shq.Quote(target)
	}
	for _, x := range r.Results {
		it := reportview.Item{ID: x.ID, Group: string(x.Kind), Verdict: string(x.Verdict), Requirement: x.Binds(),
			Clauses: x.Clauses, Message: x.Message, Expected: x.Expected, DurationMs: ms(x.Duration),
			Blocking: r.Blocks(x), Failed: x.FailedLines(),
			Repro: fmt.Sprintf("%s vectors%s --run %s", command, exec, shq.Quote("^"+regexp.QuoteMeta(x.ID)+"$"))}
		if x.NotMet() {
			it.Why = "a recommendation not met: the failing assertion cites only choices"
			if r.Meta.Strict {
				it.Why += ", held by --strict"
			}
		}
		if x.Message == "" && x.Verdict != Pass {
			it.Message = fmt.Sprintf("want %s, got %s", x.Want, x.Got)
		}
		p.Items = append(p.Items, it)
	}
	return p
}
