package certify

import (
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Report is everything one certification run found; every renderer (text, JSON, JUnit, HTML,
// badge) reads only this, and its one Verdict decides what each of them says. Other certifying
// verbs fill the same shape: Kinds, one SeamVerdict per seam judged (Seam, Kit, SpiVersion,
// Current, Served), Checks whose Kit names the seam's kit (any other Kit applies to every seam),
// Options.Run, Problems or TargetError; then Conclude sets Summary, the seams' and the report's
// Verdict.
type Report struct {
	// Kind is ReportKind ("certify"), what `report merge` dispatches on.
	Kind string `json:"kind"`
	// Shard is "i/n" for a --shard run (Config.Shard), "" for a whole or merged run.
	Shard string            `json:"shard,omitempty"`
	Tool  Tool              `json:"tool"`
	Spec  map[string]string `json:"spec"` // kernel contract versions the tool encodes
	// Profiles are the conformance profile versions the run held the target to, by kind ("kernel",
	// "stores"): what the checks demand, versioned beside the spec's versions
	// (docs/contract-changelog.md, I-CERT-52).
	Profiles   map[string]string `json:"profiles,omitempty"`
	Spi        map[string]string `json:"spi"` // SPI versions the tool's kits encode, per seam
	Kinds      []string          `json:"kinds"`
	Target     Identity          `json:"target"`
	Handshake  *bridge.Handshake `json:"handshake,omitempty"`
	Options    RunOptions        `json:"options"`
	Started    time.Time         `json:"started"`
	DurationMs float64           `json:"durationMs"`
	Seams      []SeamVerdict     `json:"seams"`
	Checks     []CheckResult     `json:"checks"`
	Summary    Summary           `json:"summary"`
	// Problems are run-level reasons the target is not certified (ledger drift, a seam that
	// judged nothing, an interrupted run).
	Problems []string `json:"problems,omitempty"`
	// TargetError, when set, is why the target never started or never answered: the verdict is
	// TargetFailed and no check ran.
	TargetError string `json:"targetError,omitempty"`
	// Verdict is the run's one outcome (see Verdict); Headline and BadgeMessage put it in words.
	Verdict Verdict `json:"verdict"`
	Logs    string  `json:"logs,omitempty"`

	// Kernel is a kernel certification's account of the kernel (its handshake).
	Kernel *KernelInfo `json:"kernel,omitempty"`
	// RoundTrip is the target's median round trip next to the reference's, measured before the
	// checks (nil: not measured, the target never answered).
	RoundTrip *Latency `json:"roundTrip,omitempty"`
}

// ProfileLine names the run's conformance profiles ("kernel profile 2.0.0"), "" when it names none.
func (r *Report) ProfileLine() string {
	var parts []string
	for _, k := range ProfileKinds() {
		if v := r.Profiles[k]; v != "" {
			parts = append(parts, k+" profile "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// Certified reports whether the run is a plain certificate (Verdict == Certified).
func (r *Report) Certified() bool { return r.Verdict == Certified }

// Tool names the harness.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// RunOptions echo the options the run used.
type RunOptions struct {
	Run        string  `json:"run,omitempty"`
	SpiVersion string  `json:"spiVersion,omitempty"`
	TimeoutMs  float64 `json:"timeoutMs"`
	Seed       int64   `json:"seed"`
	Faults     bool    `json:"faults"`
	Ledger     string  `json:"expectedFailures,omitempty"`
	// Strict holds the target to the recommended checks too (--strict): an unmet recommendation
	// then blocks like a required failure.
	Strict bool `json:"strict,omitempty"`
}

// SeamVerdict is the verdict for one seam: the SPI version the store was held to, the current
// version the harness knows, and the seam's own Verdict (empty when the seam is not served).
type SeamVerdict struct {
	Seam       string `json:"seam"`
	Kit        string `json:"kit"`
	SpiVersion string `json:"spiVersion"` // the version the store was held to
	Current    string `json:"current"`    // the newest version of this seam the harness knows
	Served     bool   `json:"served"`
	// Lacks lists the optional methods of the seam at SpiVersion that the target does not serve:
	// the certificate covers the seam without them ("EventStore SPI 2.6.0 without deleteThrough").
	Lacks   []string `json:"lacks,omitempty"`
	Verdict Verdict  `json:"verdict,omitempty"`
}

// Held reports whether the seam was held to a version older than the current one.
func (s SeamVerdict) Held() bool {
	if !s.Served || s.SpiVersion == "" || s.Current == "" {
		return false
	}
	return mustVersion(s.SpiVersion).Less(mustVersion(s.Current))
}

// CheckResult is one check's verdict in a report.
type CheckResult struct {
	Kit     string     `json:"kit"`
	ID      string     `json:"id"`
	Clauses []string   `json:"clauses"`
	Level   spec.Level `json:"level"`
	// Requirement is kits.Binding of the check and its failing assertions (set by Conclude): only a
	// required result blocks a certificate; a recommended one that fails or has no verdict is a
	// recommendation not met (blocking only under --strict).
	Requirement spec.Requirement `json:"requirement"`
	Verdict     kits.Verdict     `json:"verdict"`
	// Failed lists a failure's failing assertions, each with its clauses and how it binds.
	Failed     []kits.FailedAssertion `json:"failedAssertions,omitempty"`
	DurationMs float64                `json:"durationMs"`
	Message    string                 `json:"message,omitempty"`
	Seed       int64                  `json:"seed"`
	Repro      string                 `json:"repro"`
	// Expected is the ledger entry for this check, when there is one.
	Expected *Expectation `json:"expected,omitempty"`
	// Blocking says this result keeps the target from being certified, and Why says why.
	Blocking bool   `json:"blocking"`
	Why      string `json:"why,omitempty"`
	// Waived: a failure that would block and that the ledger excused (set by Conclude).
	Waived bool `json:"waived,omitempty"`
	// Witness is a linearizability failure's witness (rendered by render_html.go).
	Witness *kits.Witness `json:"witness,omitempty"`
	// Finding is an exploration's shrunk script and where it parts from the reference, and
	// FindingFile where it was written (Config.Findings).
	Finding     *explore.Finding `json:"finding,omitempty"`
	FindingFile string           `json:"findingFile,omitempty"`
	// Rerun, when the harness ran the check again, says why and what its first run ended in; the
	// verdict is the last run's (I-CERT-60).
	Rerun *Rerun `json:"rerun,omitempty"`
}

// Rerun is why a check ran again and what its first run ended in (I-CERT-60).
type Rerun struct {
	// Why is "no verdict while the target answered" or "the target was down and came back".
	Why          string       `json:"why"`
	FirstVerdict kits.Verdict `json:"firstVerdict"`
	FirstMessage string       `json:"firstMessage,omitempty"`
}

// String is the re-run in one line: "no verdict while the target answered: the first run was
// unknown (…)".
func (r Rerun) String() string {
	s := fmt.Sprintf("%s; the first run was %s", r.Why, r.FirstVerdict)
	if m := firstLine(r.FirstMessage); m != "" {
		s += ": " + m
	}
	return s
}

// RerunIDs lists the checks of r the harness ran again, in report order.
func RerunIDs(r *Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.Rerun != nil {
			out = append(out, c.ID)
		}
	}
	return out
}

// FailedLines names the failing assertions of c, one line each ("failing assertion: eventStore.read
// [S7.x] required (spec)"), for every surface that shows a failure.
func (c CheckResult) FailedLines() []string {
	out := make([]string, len(c.Failed))
	for i, a := range c.Failed {
		out[i] = "failing assertion: " + a.Label()
	}
	return out
}

// NotMet reports whether c is a recommendation not met: a recommended check that failed or has no
// verdict, listed in the ledger or not.
func (c CheckResult) NotMet() bool {
	return c.Requirement == spec.Recommended && (c.Verdict == kits.Fail || c.Verdict == kits.Unknown)
}

// Summary counts verdicts.
type Summary struct {
	Total        int `json:"total"`
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Skip         int `json:"skip"`
	Unknown      int `json:"unknown"`
	Expected     int `json:"expectedFailures"` // failures the ledger lists (and that do not block)
	Blocking     int `json:"blocking"`
	RequiredRun  int `json:"requiredRun"`  // required checks that ran (not skipped)
	RequiredPass int `json:"requiredPass"` // … and passed
	// RecommendedRun counts the recommended checks that ran; RecommendationsNotMet those of them
	// that failed or have no verdict (CheckResult.NotMet).
	RecommendedRun        int `json:"recommendedRun"`
	RecommendationsNotMet int `json:"recommendationsNotMet"`
	// Waivers counts the failures that would block (required ones; recommended ones too under
	// --strict) and that the ledger excused.
	Waivers int `json:"waivers"`
	// LeftOut counts the checks --run did not select, MustLeftOut the MUST ones among them.
	LeftOut     int `json:"leftOut"`
	MustLeftOut int `json:"mustLeftOut"`
	// Reruns counts the checks the harness ran again (CheckResult.Rerun).
	Reruns int `json:"reruns"`
}

func summarize(checks []CheckResult) Summary {
	var s Summary
	for _, c := range checks {
		s.Total++
		switch c.Verdict {
		case kits.Pass:
			s.Pass++
		case kits.Fail:
			s.Fail++
			if c.Expected != nil && !c.Blocking {
				s.Expected++
			}
		case kits.Skip:
			s.Skip++
		case kits.Unknown:
			s.Unknown++
		}
		if c.Blocking {
			s.Blocking++
		}
		if c.Waived {
			s.Waivers++
		}
		if c.Rerun != nil {
			s.Reruns++
		}
		if c.Verdict == kits.Skip {
			continue
		}
		if c.Requirement == spec.Required {
			s.RequiredRun++
			if c.Verdict == kits.Pass {
				s.RequiredPass++
			}
		} else {
			s.RecommendedRun++
			if c.NotMet() {
				s.RecommendationsNotMet++
			}
		}
	}
	return s
}

func isMust(l spec.Level) bool { return l == spec.Must || l == spec.MustNot }
