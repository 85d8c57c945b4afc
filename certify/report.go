package certify

import (
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Report is everything one certification run found; every renderer (text, JSON, JUnit, HTML,
// badge) reads only this.
type Report struct {
	Tool       Tool              `json:"tool"`
	Spec       map[string]string `json:"spec"` // kernel contract versions the tool encodes
	Spi        map[string]string `json:"spi"`  // SPI versions the tool's kits encode, per seam
	Kinds      []string          `json:"kinds"`
	Target     Identity          `json:"target"`
	Handshake  *bridge.Handshake `json:"handshake,omitempty"`
	Options    RunOptions        `json:"options"`
	Started    time.Time         `json:"started"`
	DurationMs float64           `json:"durationMs"`
	Seams      []SeamVerdict     `json:"seams"`
	Checks     []CheckResult     `json:"checks"`
	Summary    Summary           `json:"summary"`
	// Problems are run-level reasons the target is not certified (start failure, ledger drift).
	Problems  []string `json:"problems,omitempty"`
	Certified bool     `json:"certified"`
	Logs      string   `json:"logs,omitempty"`
}

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
}

// SeamVerdict is the verdict for one seam: the SPI version the store was held to and whether every
// MUST check of that seam passed.
type SeamVerdict struct {
	Seam       string `json:"seam"`
	Kit        string `json:"kit"`
	SpiVersion string `json:"spiVersion"`
	Served     bool   `json:"served"`
	Certified  bool   `json:"certified"`
}

// CheckResult is one check's verdict in a report.
type CheckResult struct {
	Kit        string       `json:"kit"`
	ID         string       `json:"id"`
	Clauses    []string     `json:"clauses"`
	Level      spec.Level   `json:"level"`
	Verdict    kits.Verdict `json:"verdict"`
	DurationMs float64      `json:"durationMs"`
	Message    string       `json:"message,omitempty"`
	Seed       int64        `json:"seed"`
	Repro      string       `json:"repro"`
	// Expected is the ledger entry for this check, when there is one.
	Expected *Expectation `json:"expected,omitempty"`
	// Blocking says this result keeps the target from being certified, and Why says why.
	Blocking bool   `json:"blocking"`
	Why      string `json:"why,omitempty"`
}

// Summary counts verdicts.
type Summary struct {
	Total    int `json:"total"`
	Pass     int `json:"pass"`
	Fail     int `json:"fail"`
	Skip     int `json:"skip"`
	Unknown  int `json:"unknown"`
	Expected int `json:"expectedFailures"` // failures the ledger lists (and that do not block)
	Blocking int `json:"blocking"`
	MustRun  int `json:"mustRun"`  // MUST / MUST NOT checks that ran (not skipped)
	MustPass int `json:"mustPass"` // … and passed
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
		if isMust(c.Level) && c.Verdict != kits.Skip {
			s.MustRun++
			if c.Verdict == kits.Pass {
				s.MustPass++
			}
		}
	}
	return s
}

func isMust(l spec.Level) bool { return l == spec.Must || l == spec.MustNot }
