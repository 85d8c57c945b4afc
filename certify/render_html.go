package certify

import (
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/reportview"
)

// WriteHTML writes the report as one self-contained page (internal/reportview): the verdict and
// headline, the failures and unknowns first with their clauses linked to their text, diffs and
// reproduce commands, a filterable table of every check, the seams, and the clause coverage.
func WriteHTML(w io.Writer, r *Report) error { return reportview.WriteHTML(w, HTMLPage(r)) }

// HTMLPage is the report as the HTML page and `report matrix` show it.
func HTMLPage(r *Report) reportview.Page {
	p := reportview.Page{Title: "loom store certification", Kind: ReportKind, Subject: r.Target.String(),
		Verdict: string(r.Verdict), Tone: tone(r.Verdict), Headline: Headline(r), Counts: CountsLine(r),
		Problems: append([]string(nil), r.Problems...), Logs: r.Logs, Tool: r.Tool.Name + " " + r.Tool.Version, Version: r.Tool.Version}
	p.Name = r.Target.String()
	if h := r.Handshake; h != nil && h.Implementation.Name != "" {
		p.Name = strings.TrimSpace(h.Implementation.Name + " " + h.Implementation.Version)
	}
	if k := r.Kernel; k != nil && k.Implementation.Name != "" {
		p.Name = strings.TrimSpace(k.Implementation.Name + " " + k.Implementation.Version)
	}
	if isKernelReport(r) {
		p.Title, p.Kind = "loom kernel certification", ReportKind+" "+KernelKind
	}
	if r.TargetError != "" && r.Verdict != TargetFailed {
		p.Problems = append(p.Problems, "target failed: "+r.TargetError)
	}
	fact := func(name, value string) {
		if value != "" {
			p.Facts = append(p.Facts, reportview.Fact{Name: name, Value: value})
		}
	}
	fact("target", r.Target.String())
	if h := r.Handshake; h != nil {
		fact("implementation", fmt.Sprintf("%s %s (bridge protocol %s)", h.Implementation.Name, h.Implementation.Version, h.Protocol))
	}
	if k := r.Kernel; k != nil {
		impl := fmt.Sprintf("%s %s (wire ABI %s, kernel ABI %s, event schema %s)", k.Implementation.Name, k.Implementation.Version, k.Wire, k.KernelAbi, k.EventSchema)
		if len(k.Features) > 0 {
			impl += "; Wave 2: " + strings.Join(k.Features, ", ")
		}
		fact("implementation", impl)
	}
	if l := r.RoundTrip; l != nil {
		rt := RoundTripLine(l)
		if l.Slow {
			rt += ". " + SlowNote(l, msDuration(r.Options.TimeoutMs))
		}
		fact("round trip", rt)
	}
	if r.Target.ImageID != "" {
		fact("image", strings.TrimSpace(r.Target.ImageID+" "+strings.Join(r.Target.RepoDigests, " ")))
	}
	fact("harness", fmt.Sprintf("%s %s; kernel ABI %s, event schema %s", r.Tool.Name, r.Tool.Version, r.Spec["kernelAbi"], r.Spec["eventSchema"]))
	if l := r.ProfileLine(); l != "" {
		fact("contract", l+" (docs/contract-changelog.md)")
	}
	run := fmt.Sprintf("started %s, seed %d, timeout %.0f ms", r.Started.UTC().Format("2006-01-02 15:04:05 UTC"), r.Options.Seed, r.Options.TimeoutMs)
	if r.Options.Run != "" {
		run += ", --run " + r.Options.Run
	}
	if r.Shard != "" {
		run += ", shard " + r.Shard
	}
	if r.Options.Faults {
		run += ", with faults"
	}
	if r.Options.Strict {
		run += ", --strict (recommendations block)"
	}
	fact("run", run)
	fact("ledger", r.Options.Ledger)
	for _, c := range r.Checks {
		it := reportview.Item{ID: c.ID, Group: c.Kit, Verdict: string(c.Verdict), Level: string(c.Level),
			Requirement: c.Requirement, Clauses: c.Clauses, Message: c.Message, Repro: c.Repro,
			Blocking: c.Blocking, Why: c.Why, DurationMs: c.DurationMs, Failed: c.FailedLines()}
		if c.Witness != nil {
			it.WitnessDrawing = c.Witness.Drawing
		}
		if c.Rerun != nil {
			it.Rerun = c.Rerun.String()
		}
		if c.Expected != nil {
			it.Expected = c.Expected.Reason
			if it.Expected == "" {
				it.Expected = "listed"
			}
		}
		p.Items = append(p.Items, it)
	}
	if len(r.Seams) > 0 {
		t := reportview.Table{Title: "Seams", Head: []string{"seam", "kit", "held to SPI", "current SPI", "verdict"}}
		for _, s := range r.Seams {
			t.Rows = append(t.Rows, []string{s.Seam, s.Kit, s.SpiVersion, s.Current, SeamWords(s)})
		}
		p.Tables = append(p.Tables, t)
	}
	return p
}

func isKernelReport(r *Report) bool { return len(r.Kinds) == 1 && r.Kinds[0] == KernelKind }

// tone is how a verdict reads on the page: only a certificate is good.
func tone(v Verdict) reportview.Tone {
	switch v {
	case Certified:
		return reportview.Good
	case CertifiedWithWaivers, HeldToOlder, Partial:
		return reportview.Warn
	case "":
		return reportview.Neutral
	}
	return reportview.Bad
}
