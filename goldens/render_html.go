package goldens

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/kits"
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
		var failed []kits.FailedAssertion
		clauses := x.Clauses
		for _, pr := range x.Problems {
			a := kits.NewFailedAssertion(spec.Must, pr.Stage, stageClauses(pr.Stage, x.Clauses))
			failed = append(failed, a)
			msg = append(msg, fmt.Sprintf("goldens/%s [%s]: %s: %s", x.Name, strings.Join(a.Clauses, " "), pr.Stage, pr.Message))
			for _, c := range a.Clauses {
				if !slices.Contains(clauses, c) {
					clauses = append(slices.Clip(clauses), c)
				}
			}
		}
		v := kits.Pass
		if x.Failed() {
			v = kits.Fail
		}
		req := kits.Binding(spec.Must, x.Clauses, v, failed)
		it := reportview.Item{ID: x.Name, Group: "goldens", Verdict: x.Verdict, Clauses: clauses,
			Requirement: req, Message: strings.Join(msg, "\n\n"), Blocking: x.Failed() && req == spec.Required,
			DurationMs: float64(x.Millis), Repro: fmt.Sprintf("%s goldens check --run %s", command, shq.Quote("^"+regexp.QuoteMeta(x.Name)+"$"))}
		for _, a := range failed {
			it.Failed = append(it.Failed, a.Label())
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// stageClauses are the clauses the comparison behind a problem at stage cites: the golden
// protocol clause it keeps (the reference reproduces its recorded log, state and results byte for
// byte, I-GOLDEN-1; replayAsFixture appends nothing, I-GOLDEN-3; an unwired feature changes no
// byte, I-GOLDEN-4; the recorded versions, I-GOLDEN-5) beside the golden's own clauses. The
// reference kernel is held to every byte of its goldens, its own choices included, so a divergence
// there is required whatever the golden is about: it is this project's kernel changing.
func stageClauses(stage string, golden []string) []string {
	own := "I-GOLDEN-1"
	switch {
	case stage == "fixture":
		own = "I-GOLDEN-3"
	case strings.HasPrefix(stage, "g2/"):
		own = "I-GOLDEN-4"
	case stage == "recorded":
		own = "I-GOLDEN-5"
	}
	return append([]string{own}, golden...)
}
