package certify

import (
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/junit"
	"github.com/loom-kernel/loom-conform/kits"
)

// WriteJUnit writes the report as JUnit XML: one suite per kit, one case per check. A blocking
// check is a failure (an error when it has no verdict), a skipped one skipped; a recommendation
// not met that does not block is skipped too, its message saying so; a listed expected failure
// passes with its reason in system-out. The first suite, "verdict", holds one case that passes
// only when the run is a plain certificate: a waived, partial, held-to-older or not-certified run
// is a failure there, so a viewer that reads only the counts never shows it green (I-CERT-11).
// Every suite carries the run's verdict as properties (loom.verdict, loom.headline,
// loom.exitCode, loom.waivers, loom.recommendationsNotMet, loom.seam.<Seam>); a target that failed
// is a suite "target" whose one case is an error naming the cause.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junit.Suites{Name: "loom-conform certify " + strings.Join(r.Kinds, ","), Time: secs(r.DurationMs)}
	vs := junit.Suite{Name: "verdict"}
	vc := junit.Case{Name: "loom/verdict", ClassName: "loom.verdict", SystemOut: Headline(r)}
	if r.Verdict != Certified {
		vc.Failure = &junit.Message{Message: Headline(r), Type: string(r.Verdict),
			Body: fmt.Sprintf("verdict %s (exit %d): %s", r.Verdict, r.Verdict.ExitCode(), CountsLine(r))}
	}
	vs.Add(vc)
	out.Suites = append(out.Suites, vs)
	idx := map[string]int{}
	if r.TargetError != "" {
		s := junit.Suite{Name: "target"}
		s.Add(junit.Case{Name: "target/start", ClassName: "loom.target", Time: secs(r.DurationMs),
			Error: &junit.Message{Message: firstLine(r.TargetError), Type: string(TargetFailed), Body: r.TargetError}})
		out.Suites = append(out.Suites, s)
	}
	for _, c := range r.Checks {
		i, ok := idx[c.Kit]
		if !ok {
			i = len(out.Suites)
			idx[c.Kit] = i
			out.Suites = append(out.Suites, junit.Suite{Name: c.Kit})
		}
		s := &out.Suites[i]
		jc := junit.Case{Name: c.ID, ClassName: "loom." + c.Kit, Time: secs(c.DurationMs)}
		head := fmt.Sprintf("[%s] %s", strings.Join(c.Clauses, " "), c.Level)
		if lines := c.FailedLines(); len(lines) > 0 {
			head += "\n" + strings.Join(lines, "\n")
		}
		body := fmt.Sprintf("%s\n%s\nreproduce: %s", head, c.Message, c.Repro)
		switch {
		case c.Blocking && c.Verdict == kits.Unknown:
			jc.Error = &junit.Message{Message: "unknown: " + firstLine(c.Message), Type: "unknown", Body: body}
		case c.Blocking:
			jc.Failure = &junit.Message{Message: firstLine(c.Why + ": " + c.Message), Type: string(c.Verdict), Body: body}
		case c.Verdict == kits.Skip:
			jc.Skipped = &junit.Message{Message: firstLine(c.Message)}
		case c.NotMet() && c.Expected == nil:
			jc.Skipped = &junit.Message{Message: "recommendation not met (not blocking): " + firstLine(c.Message)}
			jc.SystemOut = body
		case c.Verdict != kits.Pass:
			jc.SystemOut = fmt.Sprintf("%s (not blocking: %s)\n%s", c.Verdict, notBlocking(c), body)
		}
		if c.Rerun != nil {
			jc.SystemOut = strings.TrimPrefix(jc.SystemOut+"\n", "\n") + "re-run: " + c.Rerun.String()
		}
		s.Add(jc)
	}
	props := verdictProperties(r)
	for i := range out.Suites {
		out.Suites[i].Properties = props
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	return junit.Write(w, out)
}

// verdictProperties are the run's verdict as JUnit properties.
func verdictProperties(r *Report) []junit.Property {
	ps := []junit.Property{
		{Name: "loom.verdict", Value: string(r.Verdict)},
		{Name: "loom.headline", Value: Headline(r)},
		{Name: "loom.exitCode", Value: fmt.Sprint(r.Verdict.ExitCode())},
		{Name: "loom.waivers", Value: fmt.Sprint(r.Summary.Waivers)},
		{Name: "loom.recommendationsNotMet", Value: fmt.Sprint(r.Summary.RecommendationsNotMet)},
		{Name: "loom.counts", Value: CountsLine(r)},
	}
	if r.Options.Run != "" {
		ps = append(ps, junit.Property{Name: "loom.run", Value: r.Options.Run})
	}
	if r.TargetError != "" {
		ps = append(ps, junit.Property{Name: "loom.targetError", Value: r.TargetError})
	}
	if ids := RerunIDs(r); len(ids) > 0 {
		ps = append(ps, junit.Property{Name: "loom.reruns", Value: strings.Join(ids, " ")})
	}
	for _, s := range r.Seams {
		ps = append(ps, junit.Property{Name: "loom.seam." + s.Seam, Value: s.SpiVersion + " " + SeamWords(s)})
	}
	for _, k := range ProfileKinds() {
		if v := r.Profiles[k]; v != "" {
			ps = append(ps, junit.Property{Name: "loom.profile." + k, Value: v})
		}
	}
	return ps
}

func notBlocking(c CheckResult) string {
	if c.Expected != nil {
		return "expected failure: " + c.Expected.Reason
	}
	return fmt.Sprintf("level %s, %s", c.Level, c.Requirement)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func secs(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
