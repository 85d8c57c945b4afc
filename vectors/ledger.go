package vectors

import (
	"io"
	"time"

	"github.com/loom-kernel/loom-conform/internal/ledger"
)

// Ledger lists vectors known to fail, each with the reason (--expected-failures FILE), in the one
// ledger format certify shares (docs/ledger.md); an entry's "check" is a vector id. The ledger
// must be kept true: a run fails on an unlisted failure, on a listed vector that passes and on an
// expired entry.
type Ledger = ledger.Ledger

// LedgerEntry is one known failure.
type LedgerEntry = ledger.Entry

// ParseLedger reads a ledger file's bytes; name names it in errors, which quote the expected shape.
func ParseLedger(name string, data []byte) (*Ledger, error) { return ledger.Parse(name, data) }

// WriteLedger writes a ledger listing every vector of r that failed (--write-ledger); listed
// failures keep their reason, new ones say since when they fail (now, UTC) and what failed, for a
// person to replace with the reason (docs/ledger.md).
func WriteLedger(w io.Writer, r Report, now time.Time) error {
	var out []LedgerEntry
	for _, x := range r.Results {
		if x.Verdict != Fail {
			continue
		}
		reason := x.Expected
		if reason == "" {
			reason = "fails since " + now.UTC().Format(time.DateOnly) + ": " + firstLine(x.Message) + " (replace with the reason and a tracking link)"
		}
		out = append(out, LedgerEntry{Check: x.ID, Reason: reason})
	}
	return ledger.Write(w, out)
}
