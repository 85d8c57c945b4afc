package goldens

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/spec"
)

// HTMLPage is the report as the HTML page (reportview.WriteHTML, --html) and `report matrix` show
// it; command is how reproduce lines name this binary.
func (r Report) HTMLPage(command string) reportview.Page {
	p := reportview.Page{Title: "loom golden logs", Kind: ReportKind, Subject: "the reference kernel", Verdict: "pass", Tone: reportview.Good,
		Headline: fmt.Sprintf("PASS: %d golden(s) reproduced%s", r.Checked, r.Subset()), Tool: "loom-conform",
		Counts: fmt.Sprintf("%d checked, %d passed, %d failed", r.Checked, r.Checked-r.Failed, r.Failed),
		Facts:  []reportview.Fact{{Name: "corpus", Value: r.Corpus}}}
	if r.Failed > 0 {
		p.Verdict, p.Tone, p.Headline = "fail", reportview.Bad, fmt.Sprintf("FAIL: %d of %d goldens diverged%s", r.Failed, r.Checked, r.Subset())
	}
	if r.Run != "" {
		p.Facts = append(p.Facts, reportview.Fact{Name: "--run", Value: r.Run})
	}
	if r.Shard != "" {
		p.Headline += " — shard " + r.Shard + " only"
	}
	for _, x := range r.Results {
		var msg []string
		for _, pr := range x.Problems {
			msg = append(msg, fmt.Sprintf("goldens/%s [%s]: %s: %s", x.Name, strings.Join(x.Clauses, " "), pr.Stage, pr.Message))
		}
		p.Items = append(p.Items, reportview.Item{ID: x.Name, Group: "goldens", Verdict: x.Verdict, Clauses: x.Clauses,
			Requirement: spec.RequirementOf(x.Clauses), Message: strings.Join(msg, "\n\n"), Blocking: x.Failed(),
			DurationMs: float64(x.Millis), Repro: fmt.Sprintf("%s goldens check --run %s", command, shq.Quote("^"+regexp.QuoteMeta(x.Name)+"$"))})
	}
	return p
}
