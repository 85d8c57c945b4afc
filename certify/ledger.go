package certify

import (
	"fmt"
	"io"
	"time"

	"github.com/loom-kernel/loom-conform/internal/ledger"
	"github.com/loom-kernel/loom-conform/kits"
)

// Ledger is the expected-failures ledger (--expected-failures), the one format certify and
// vectors share (docs/ledger.md).
type Ledger = ledger.Ledger

// Expectation is one entry of a ledger: a check the store is known to fail, why, and optionally
// until when the entry holds.
type Expectation = ledger.Entry

// ReadLedger reads and checks a ledger file. Errors name the file, the entry index and the field,
// and quote the expected shape.
func ReadLedger(path string) (*Ledger, error) { return ledger.Read(path) }

// ParseLedger parses ledger bytes (name is used in messages).
func ParseLedger(name string, b []byte) (*Ledger, error) { return ledger.Parse(name, b) }

// WriteLedger writes a ledger that lists every check of r that failed (the entries of the run's
// ledger that still fail keep their reason and expiry), to start or refresh one from a failing run
// (--write-ledger). Unknown verdicts are not listed: a ledger excuses failures, not silence.
func WriteLedger(w io.Writer, r *Report, now time.Time) error {
	var out []Expectation
	for _, c := range r.Checks {
		if c.Verdict != kits.Fail {
			continue
		}
		if c.Expected != nil {
			out = append(out, *c.Expected)
			continue
		}
		out = append(out, Expectation{Check: c.ID,
			Reason: fmt.Sprintf("fails since %s: %s (replace with the reason and a tracking link)", now.UTC().Format(time.DateOnly), firstLine(c.Message))})
	}
	return ledger.Write(w, out)
}
