package certify

import (
	"fmt"
	"strings"
)

// Verdict is the one outcome of a certification run (I-CERT-1). The report's Verdict decides the
// text headline, the JSON "verdict", the JUnit properties, the HTML headline, the badge's message
// and colour, and the CLI's exit code: no renderer decides on its own.
type Verdict string

const (
	// Certified: every served seam was held to its current SPI version, every selected check of
	// the full run has a verdict, every MUST check passed, and no ledger entry excused a MUST
	// failure. The only verdict that is a plain certificate.
	Certified Verdict = "certified"
	// CertifiedWithWaivers: as Certified, except that the expected-failures ledger excused N MUST
	// failures (Summary.Waivers).
	CertifiedWithWaivers Verdict = "certified-with-waivers"
	// HeldToOlder: nothing blocks, but at least one seam was held to an SPI version older than the
	// current one (by --spi or by the store's own claim): "held to X", never "certified".
	HeldToOlder Verdict = "held-to-older-version"
	// Partial: --run selected a subset of the checks; whatever passed, a subset is never a
	// certificate.
	Partial Verdict = "partial"
	// NotCertified: a check blocks (a MUST check failed or has no verdict, the ledger is untrue) or
	// the run has a problem (a served seam judged nothing, the bridge does not serve the seam asked
	// for).
	NotCertified Verdict = "not-certified"
	// TargetFailed: the target never started or never answered the handshake; no check ran and
	// Report.TargetError says why.
	TargetFailed Verdict = "target-failed"
)

// Verdicts lists every verdict from best to worst: a run's verdict is the worst that applies.
func Verdicts() []Verdict {
	return []Verdict{Certified, CertifiedWithWaivers, HeldToOlder, Partial, NotCertified, TargetFailed}
}

func (v Verdict) rank() int {
	for i, x := range Verdicts() {
		if x == v {
			return i
		}
	}
	return len(Verdicts())
}

// worse returns the worse of a and b ("" counts as no verdict yet).
func worse(a, b Verdict) Verdict {
	if a == "" || b.rank() > a.rank() {
		return b
	}
	return a
}

// Exit codes of `certify`, one per verdict (2 is bad input, as for every verb).
const (
	ExitCertified            = 0
	ExitNotCertified         = 1
	ExitBadInput             = 2
	ExitTargetFailed         = 3
	ExitCertifiedWithWaivers = 4
	ExitPartial              = 5
	ExitHeldToOlder          = 6
)

// ExitCode is the exit code `certify` ends with for v.
func (v Verdict) ExitCode() int {
	switch v {
	case Certified:
		return ExitCertified
	case CertifiedWithWaivers:
		return ExitCertifiedWithWaivers
	case HeldToOlder:
		return ExitHeldToOlder
	case Partial:
		return ExitPartial
	case TargetFailed:
		return ExitTargetFailed
	}
	return ExitNotCertified
}

// Acceptable reports whether a caller may opt into treating v as success (`certify --accept`):
// the qualified verdicts, never not-certified or target-failed.
func (v Verdict) Acceptable() bool {
	return v == CertifiedWithWaivers || v == HeldToOlder || v == Partial
}

// ParseVerdict reads a verdict name.
func ParseVerdict(s string) (Verdict, error) {
	for _, v := range Verdicts() {
		if string(v) == s {
			return v, nil
		}
	}
	names := make([]string, len(Verdicts()))
	for i, v := range Verdicts() {
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown verdict %q (want one of %s)", s, strings.Join(names, ", "))
}

// Headline is the verdict in words, the same in the text certificate, the HTML page and the JUnit
// properties: "CERTIFIED: EventStore SPI 2.6.0", "CERTIFIED WITH 3 WAIVERS (…): <seams>", "HELD TO EventStore 1.0.0 (current 2.6.0) —
// NOT A CERTIFICATE OF THE CURRENT SPI", "PARTIAL RUN (--run fence) — NOT A CERTIFICATE",
// "NOT CERTIFIED", "TARGET FAILED: <cause>".
func Headline(r *Report) string {
	switch r.Verdict {
	case Certified:
		return "CERTIFIED: " + judgedList(r) + notMetSuffix(r)
	case CertifiedWithWaivers:
		return fmt.Sprintf("CERTIFIED WITH %d %s (failures excused by the expected-failures ledger): %s%s", r.Summary.Waivers, plural(r.Summary.Waivers, "WAIVER", "WAIVERS"), judgedList(r), notMetSuffix(r))
	case HeldToOlder:
		return fmt.Sprintf("HELD TO %s — NOT A CERTIFICATE OF THE CURRENT SPI%s", heldList(r, true), notMetSuffix(r))
	case Partial:
		return fmt.Sprintf("PARTIAL RUN (%s) — NOT A CERTIFICATE", partOf(r))
	case TargetFailed:
		return "TARGET FAILED: " + r.TargetError
	}
	if r.Options.Strict && r.Summary.RecommendationsNotMet > 0 {
		return "NOT CERTIFIED (--strict)" + notMetSuffix(r)
	}
	return "NOT CERTIFIED"
}

// notMetSuffix is " — 2 recommendations not met" when recommended checks failed or have no verdict
// ("" when none): a certificate always says so (DESIGN §7.1, I-CERT-10).
func notMetSuffix(r *Report) string {
	n := r.Summary.RecommendationsNotMet
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" — %d %s not met", n, plural(n, "recommendation", "recommendations"))
}

// NotMetIDs lists the recommended checks that failed or have no verdict, in report order.
func NotMetIDs(r *Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.NotMet() {
			out = append(out, c.ID)
		}
	}
	return out
}

// BadgeMessage is the badge's right half and its colour for r's verdict.
func BadgeMessage(r *Report) (msg, color string) {
	switch r.Verdict {
	case Certified:
		if n := r.Summary.RecommendationsNotMet; n > 0 {
			return fmt.Sprintf("certified, %d %s not met", n, plural(n, "recommendation", "recommendations")), "#4c1"
		}
		return "certified", "#4c1"
	case CertifiedWithWaivers:
		return fmt.Sprintf("certified with %d %s", r.Summary.Waivers, plural(r.Summary.Waivers, "waiver", "waivers")), "#dfb317"
	case HeldToOlder:
		return "held to " + heldList(r, false), "#007ec6" // blue: informational, far from the certified green
	case Partial:
		if r.Shard != "" {
			return "shard " + r.Shard + " of a run", "#9f9f9f"
		}
		return "partial run", "#9f9f9f"
	case TargetFailed:
		return "target failed", "#e05d44"
	}
	return "not certified", "#e05d44"
}

// judgedList names the seams a certificate covers — "EventStore SPI 2.6.0" or "3 store SPIs
// (EventStore 2.6.0, SnapshotStore 1.2.0, ArchiveStore 1.0.0)" — and, when some were asked for but
// not served, says so: "(not served, so not judged: SnapshotStore, ArchiveStore)".
func judgedList(r *Report) string {
	judged := JudgedSeams(r)
	var s string
	switch len(judged) {
	case 0:
		s = "no seam served"
	case 1:
		s = seamVersion(judged[0]) + lacksWords(judged[0])
	default:
		var parts []string
		for _, j := range judged {
			v := j.SpiVersion
			if v == "" {
				v = "?"
			}
			parts = append(parts, j.Seam+" "+v+lacksWords(j))
		}
		s = fmt.Sprintf("%d store SPIs (%s)", len(judged), strings.Join(parts, ", "))
	}
	var unserved []string
	for _, x := range r.Seams {
		if !x.Served {
			unserved = append(unserved, x.Seam)
		}
	}
	if len(unserved) > 0 {
		s += " (not served, so not judged: " + strings.Join(unserved, ", ") + ")"
	}
	return s
}

// lacksWords is " without deleteThrough, storeNow" for a seam served without some of its optional
// methods: the certificate covers the seam without them (I-CERT-3).
func lacksWords(s SeamVerdict) string {
	if len(s.Lacks) == 0 {
		return ""
	}
	return " without " + strings.Join(s.Lacks, ", ")
}

// heldList names the seams held below their current version: "EventStore 1.0.0 (current 2.6.0)"
// (long) or "1.0.0" / "EventStore 1.0.0, ArchiveStore 1.0.0" (short).
func heldList(r *Report, long bool) string {
	var held []SeamVerdict
	for _, s := range r.Seams {
		if s.Held() {
			held = append(held, s)
		}
	}
	var parts []string
	for _, s := range held {
		switch {
		case long:
			parts = append(parts, fmt.Sprintf("%s %s (current %s)", s.Seam, s.SpiVersion, s.Current))
		case len(held) == 1:
			parts = append(parts, s.SpiVersion)
		default:
			parts = append(parts, s.Seam+" "+s.SpiVersion)
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
