package certify

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/loom-kernel/loom-conform/internal/safetext"
	"github.com/loom-kernel/loom-conform/kits"
)

// WriteSummary writes the per-kit table of verdicts, then every blocking or failing check.
func WriteSummary(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kit\tpass\tfail\tskip\tunknown\texpected\t")
	var order []string
	per := map[string]*Summary{}
	for _, c := range r.Checks {
		if per[c.Kit] == nil {
			per[c.Kit] = &Summary{}
			order = append(order, c.Kit)
		}
		s := per[c.Kit]
		*s = addTo(*s, c)
	}
	for _, k := range order {
		s := per[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", k, s.Pass, s.Fail, s.Skip, s.Unknown, s.Expected)
	}
	s := r.Summary
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%d\t%d\t\n", s.Pass, s.Fail, s.Skip, s.Unknown, s.Expected)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, id := range NotMetIDs(r) {
		c, _ := findCheck(r, id)
		if c.Expected != nil || c.Blocking {
			continue // listed below with the failures
		}
		fmt.Fprintf(w, "\nRECOMMENDATION NOT MET %s [%s] (%s, recommended: does not block)\n%s  %s\n  reproduce: %s\n",
			c.ID, strings.Join(c.Clauses, " "), c.Level, assertionLines(c), indent(c.Message), c.Repro)
	}
	for _, c := range r.Checks {
		if !c.Blocking && (c.Verdict != kits.Fail || c.NotMet() && c.Expected == nil) {
			continue
		}
		fmt.Fprintf(w, "\n%s %s [%s] (%s)", strings.ToUpper(string(c.Verdict)), c.ID, strings.Join(failedClauses(c), " "), c.Level)
		if c.Why != "" {
			fmt.Fprintf(w, " — %s", safetext.Line(c.Why))
		} else if c.Expected != nil {
			fmt.Fprintf(w, " — expected: %s", safetext.Line(c.Expected.Reason))
		}
		fmt.Fprintf(w, "\n%s  %s\n  reproduce: %s\n", assertionLines(c), indent(safetext.Visible(c.Message)), safetext.Visible(c.Repro))
	}
	for _, c := range r.Checks {
		if c.Rerun != nil {
			fmt.Fprintf(w, "\nRE-RUN %s (%s on its second run) — %s\n", c.ID, c.Verdict, indent(safetext.Visible(c.Rerun.String())))
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "\nPROBLEM %s\n", safetext.Visible(p))
	}
	if r.TargetError != "" {
		fmt.Fprintf(w, "\nTARGET FAILED %s\n", safetext.Visible(r.TargetError))
	}
	return nil
}

func findCheck(r *Report, id string) (CheckResult, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return CheckResult{}, false
}

func addTo(s Summary, c CheckResult) Summary {
	one := summarize([]CheckResult{c})
	s.Total += one.Total
	s.Pass += one.Pass
	s.Fail += one.Fail
	s.Skip += one.Skip
	s.Unknown += one.Unknown
	s.Expected += one.Expected
	s.Blocking += one.Blocking
	return s
}

// assertionLines lists c's failing assertions, each on an indented line of its own.
func assertionLines(c CheckResult) string {
	var b strings.Builder
	for _, l := range c.FailedLines() {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// rerunLine is the certificate's line naming the checks the harness ran again ("" when none).
func rerunLine(r *Report) string {
	ids := RerunIDs(r)
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("  re-run:         %d %s ran again after a first run without a verdict (the verdict is the second run's): %s\n",
		len(ids), plural(len(ids), "check", "checks"), strings.Join(ids, ", "))
}

// SeamWords is a seam's verdict in words, as the certificate and the HTML page show it.
func SeamWords(s SeamVerdict) string {
	switch {
	case !s.Served:
		return "not served"
	case s.Verdict == HeldToOlder:
		return fmt.Sprintf("held to %s (current %s)", s.SpiVersion, s.Current)
	}
	return strings.ReplaceAll(string(s.Verdict), "-", " ")
}

// CountsLine is the summary of the counts, worded so that it agrees with the verdict: the MUST
// checks that ran and passed, and the ones left out or skipped, which no certificate covers.
func CountsLine(r *Report) string {
	s := r.Summary
	line := fmt.Sprintf("%d run: %d pass, %d fail (%d expected, %d of them waivers), %d skip, %d unknown; required %d/%d passed; recommended %d/%d met",
		s.Total, s.Pass, s.Fail, s.Expected, s.Waivers, s.Skip, s.Unknown, s.RequiredPass, s.RequiredRun,
		s.RecommendedRun-s.RecommendationsNotMet, s.RecommendedRun)
	if s.MustLeftOut > 0 || s.LeftOut > 0 {
		line += fmt.Sprintf("; %d check(s) (%d MUST) left out by --run", s.LeftOut, s.MustLeftOut)
	}
	return line
}

// notMetLines names each recommendation not met, one per line, for the certificate (its reasons are
// in the summary above it and in every report): "" when there is none.
func notMetLines(r *Report) string {
	ids := NotMetIDs(r)
	if len(ids) == 0 {
		return ""
	}
	blocks := "recommended: they do not block; --strict holds the target to them"
	if r.Options.Strict {
		blocks = "--strict: they block"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  not met:        %d %s (%s)\n", len(ids), plural(len(ids), "recommendation", "recommendations"), blocks)
	for _, id := range ids {
		c, _ := findCheck(r, id)
		fmt.Fprintf(&b, "    %s [%s]\n", safetext.Line(id), strings.Join(failedClauses(c), " "))
	}
	return b.String()
}

// failedClauses are the clauses a failure breaks: those of its failing assertions (for a
// recommendation not met, each a choice), or, with none named (no verdict), the check's.
func failedClauses(c CheckResult) []string {
	var out []string
	for _, a := range c.Failed {
		for _, id := range a.Clauses {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	if len(out) == 0 {
		return c.Clauses
	}
	return out
}

// contractLine names the conformance profiles the run held the target to, for the certificate.
func contractLine(r *Report) string {
	if l := r.ProfileLine(); l != "" {
		return "  contract:       " + l + " (what the checks demand: docs/contract-changelog.md)\n"
	}
	return ""
}

// WriteCertificate writes the certificate: the verdict's headline, what was certified, per seam
// the SPI version and its verdict, the counts. It is the last thing `certify` prints (to stdout).
func WriteCertificate(w io.Writer, r *Report) error {
	if slices.Equal(r.Kinds, []string{KernelKind}) {
		return writeKernelCertificate(w, r)
	}
	impl := "(no handshake)"
	if r.Handshake != nil {
		// the target names itself: shown, never obeyed (safetext)
		impl = fmt.Sprintf("%s %s", safetext.Line(r.Handshake.Implementation.Name), safetext.Line(r.Handshake.Implementation.Version))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "loom store certificate — %s\n", safetext.Line(strings.Join(strings.Fields(Headline(r)), " ")))
	fmt.Fprintf(&b, "  verdict:        %s (exit %d)\n", r.Verdict, r.Verdict.ExitCode())
	fmt.Fprintf(&b, "  target:         %s\n", safetext.Line(r.Target.String()))
	fmt.Fprintf(&b, "  implementation: %s\n", impl)
	writeRoundTrip(&b, r)
	for _, s := range r.Seams {
		if r.Verdict == TargetFailed && len(r.Checks) == 0 {
			break // nothing was judged: the one cause above says why, no seam needs a line
		}
		ver := safetext.Line(s.SpiVersion)
		if ver == "" {
			ver = "-"
		}
		fmt.Fprintf(&b, "  %-15s SPI %-6s %s\n", s.Seam+":", ver, SeamWords(s))
	}
	fmt.Fprintf(&b, "  checks:         %s\n", CountsLine(r))
	b.WriteString(notMetLines(r))
	b.WriteString(rerunLine(r))
	b.WriteString(contractLine(r))
	fmt.Fprintf(&b, "  harness:        loom-conform %s (kernel ABI %s, event schema %s, bridge protocol %s), seed %d, %.1fs\n",
		r.Tool.Version, r.Spec["kernelAbi"], r.Spec["eventSchema"], r.Spec["bridgeProtocol"], r.Options.Seed, r.DurationMs/1000)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRoundTrip writes the certificate's round-trip line, and a slow target's note.
func writeRoundTrip(b *strings.Builder, r *Report) {
	l := r.RoundTrip
	if l == nil {
		return
	}
	fmt.Fprintf(b, "  round trip:     %s\n", RoundTripLine(l))
	if l.Slow {
		fmt.Fprintf(b, "  NOTE %s\n", SlowNote(l, msDuration(r.Options.TimeoutMs)))
	}
}
