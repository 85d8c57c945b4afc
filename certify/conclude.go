package certify

import (
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// Conclude judges a filled report (I-CERT-1): it applies the ledger to every check (which ones
// block, and why), counts the summary, gives each served seam its verdict and the report the worst
// that applies. leftOut are the levels of the checks --run did not select. Any certifying verb
// fills Report (see its doc) and calls Conclude, so every verb's certificate means the same.
func Conclude(rep *Report, ledger *Ledger, now time.Time, leftOut []spec.Level) {
	strict := rep.Options.Strict
	for i := range rep.Checks {
		c := &rep.Checks[i]
		c.Requirement = kits.Binding(c.Level, c.Clauses, c.Verdict, c.Failed)
		c.Expected, c.Blocking, c.Why, c.Waived = nil, false, "", false
		if e, ok := ledger.Lookup(c.ID); ok {
			e := e
			c.Expected = &e
		}
		// binds: a failure of this check keeps the target from being certified — a required check,
		// or under --strict any check (DESIGN §7.1, I-CERT-10).
		binds := c.Requirement == spec.Required || strict
		switch {
		case c.Expected != nil && c.Expected.Expired(now):
			c.Blocking, c.Why = true, fmt.Sprintf("the expected-failures entry expired on %s (I-BRIDGE-8)", c.Expected.Expires)
		case c.Expected != nil && c.Verdict == kits.Pass:
			c.Blocking, c.Why = true, "listed as an expected failure but it passes: remove the entry (I-BRIDGE-8)"
		case c.Expected != nil && c.Verdict == kits.Fail:
			// Known and listed: does not block; one that would have blocked is a waiver (I-CERT-2).
			c.Waived = binds
		case binds && c.Verdict == kits.Fail && c.Requirement == spec.Required:
			c.Blocking, c.Why = true, "a required check failed"
		case binds && c.Verdict == kits.Unknown && c.Requirement == spec.Required:
			c.Blocking, c.Why = true, "a required check has no verdict (I-CERT-3)"
		case binds && c.Verdict == kits.Fail:
			c.Blocking, c.Why = true, "a recommendation is not met, and --strict holds the target to recommendations"
		case binds && c.Verdict == kits.Unknown:
			c.Blocking, c.Why = true, "a recommended check has no verdict, and --strict holds the target to recommendations"
		}
	}
	rep.Summary = summarize(rep.Checks)
	for _, l := range leftOut {
		rep.Summary.LeftOut++
		if isMust(l) {
			rep.Summary.MustLeftOut++
		}
	}
	kitOf := map[string]bool{}
	for _, s := range rep.Seams {
		kitOf[s.Kit] = true
	}
	// A check belongs to the seam whose kit ran it; the others (bridge protocol, faults) to all.
	applies := func(c CheckResult, s SeamVerdict) bool { return c.Kit == s.Kit || !kitOf[c.Kit] }
	// A shard is a part of a run, like a --run subset (I-SHARD-2).
	partial := rep.Options.Run != "" || rep.Shard != ""
	var overall Verdict
	served := 0
	for i := range rep.Seams {
		s := &rep.Seams[i]
		s.Verdict = ""
		if !s.Served {
			continue
		}
		served++
		v := Certified
		requiredRan, waivers := 0, 0
		for _, c := range rep.Checks {
			if !applies(c, *s) {
				continue
			}
			if c.Blocking {
				v = worse(v, NotCertified)
			}
			// The version claim alone judges nothing about the store (I-STORE-24).
			if c.Kit == s.Kit && c.Requirement == spec.Required && c.Verdict != kits.Skip && !strings.HasSuffix(c.ID, "/version-claim") {
				requiredRan++
			}
			if c.Waived {
				waivers++
			}
		}
		if requiredRan == 0 && !partial {
			// A served seam is certified by checks that ran (I-STORE-24). A part of a run (--run, a
			// shard) may hold none of a seam's checks: it is partial, and a shard's seams are
			// decided over the merge.
			v = worse(v, NotCertified)
			rep.Problems = appendOnce(rep.Problems, noRequiredProblem(rep, *s))
		}
		if partial {
			v = worse(v, Partial)
		}
		if s.Held() {
			v = worse(v, HeldToOlder)
		}
		if waivers > 0 {
			v = worse(v, CertifiedWithWaivers)
		}
		s.Verdict = v
		overall = worse(overall, v)
	}
	switch {
	case rep.TargetError != "":
		overall = TargetFailed
	case served == 0:
		overall = NotCertified
		if len(rep.Problems) == 0 {
			rep.Problems = append(rep.Problems, "the target serves none of the seams asked for: nothing was judged")
		}
	}
	if len(rep.Problems) > 0 || rep.Summary.Blocking > 0 {
		overall = worse(overall, NotCertified)
	}
	if partial {
		overall = worse(overall, Partial)
	}
	if rep.Summary.Waivers > 0 {
		overall = worse(overall, CertifiedWithWaivers)
	}
	rep.Verdict = overall
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// noRequiredProblem says why a served seam whose kit ran no required check in a whole run is not
// certified.
func noRequiredProblem(rep *Report, s SeamVerdict) string {
	skipped, ran := 0, 0
	for _, c := range rep.Checks {
		if c.Kit == s.Kit {
			ran++
			if c.Verdict == kits.Skip {
				skipped++
			}
		}
	}
	why := fmt.Sprintf("all %d of its checks were skipped or are not required checks (the version claim does not count)", ran)
	if skipped == ran {
		why = fmt.Sprintf("all %d of its checks were skipped (see their messages: undeclared methods, an older SPI claim)", ran)
	}
	return fmt.Sprintf("%s is not certified: the %s kit ran no required check, so it judged nothing (I-STORE-24): %s", s.Seam, s.Kit, why)
}
