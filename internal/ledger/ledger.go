// Package ledger is the one expected-failures ledger format, shared by `certify` and `vectors`
// (docs/ledger.md):
//
//	{"expectedFailures": [{"check": "eventstore/fence-if-race", "reason": "…", "expires": "2027-01-31"}]}
//
// "check" is a check id (certify) or a vector id (vectors); "expires" is optional (YYYY-MM-DD,
// UTC; past it the entry itself fails the run).
package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Shape is the expected shape, quoted by every parse error.
const Shape = `{"expectedFailures": [{"check": "<id>", "reason": "<why>", "expires": "YYYY-MM-DD" (optional)}]}`

// Entry is one known failure: a check (or vector) id, why, and optionally until when it holds.
type Entry struct {
	Check   string `json:"check"`
	Reason  string `json:"reason"`
	Expires string `json:"expires,omitempty"`
}

// Ledger is a parsed ledger file.
type Ledger struct {
	File    string  `json:"file"`
	Entries []Entry `json:"expectedFailures"`
}

// Read reads and checks a ledger file. Errors name the file, the entry index and the field.
func Read(path string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse parses ledger bytes (name is used in messages).
func Parse(name string, b []byte) (*Ledger, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		return nil, fmt.Errorf("%s: a bare JSON array is not a ledger: want %s", name, Shape)
	}
	var doc struct {
		ExpectedFailures []Entry `json:"expectedFailures"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v: want %s", name, err, Shape)
	}
	if d.More() {
		return nil, fmt.Errorf("%s: text after the ledger object: want one object %s", name, Shape)
	}
	if doc.ExpectedFailures == nil {
		return nil, fmt.Errorf("%s: field expectedFailures is missing: want %s", name, Shape)
	}
	seen := map[string]int{}
	for i, e := range doc.ExpectedFailures {
		switch {
		case e.Check == "":
			return nil, fmt.Errorf("%s: expectedFailures[%d].check is empty", name, i)
		case e.Reason == "" || len(bytes.TrimSpace([]byte(e.Reason))) == 0:
			return nil, fmt.Errorf("%s: expectedFailures[%d].reason is empty (say why %s is expected to fail)", name, i, e.Check)
		}
		if j, dup := seen[e.Check]; dup {
			return nil, fmt.Errorf("%s: expectedFailures[%d].check %q is listed twice (first at [%d])", name, i, e.Check, j)
		}
		seen[e.Check] = i
		if e.Expires != "" {
			if _, err := time.Parse(time.DateOnly, e.Expires); err != nil {
				return nil, fmt.Errorf("%s: expectedFailures[%d].expires %q: want YYYY-MM-DD", name, i, e.Expires)
			}
		}
	}
	return &Ledger{File: name, Entries: doc.ExpectedFailures}, nil
}

// Lookup returns the entry for check (a nil ledger lists nothing).
func (l *Ledger) Lookup(check string) (Entry, bool) {
	if l == nil {
		return Entry{}, false
	}
	for _, e := range l.Entries {
		if e.Check == check {
			return e, true
		}
	}
	return Entry{}, false
}

// Names refuses a ledger with an entry that names nothing known (a typo, a renamed check): an
// error naming the file, the entry and what noun the id should have been ("check of this
// harness"), before any run (I-CERT-33). A nil ledger names nothing and is fine.
func (l *Ledger) Names(noun string, known func(id string) bool) error {
	if l == nil {
		return nil
	}
	for i, e := range l.Entries {
		if !known(e.Check) {
			return fmt.Errorf("--expected-failures %s: expectedFailures[%d].check %q names no %s", l.File, i, e.Check, noun)
		}
	}
	return nil
}

// Expired reports whether e's expiry day is over at now.
func (e Entry) Expired(now time.Time) bool {
	if e.Expires == "" {
		return false
	}
	t, err := time.Parse(time.DateOnly, e.Expires)
	return err == nil && !now.UTC().Before(t.Add(24*time.Hour))
}

// Write writes entries as a ledger file that Parse reads back (--write-ledger).
func Write(w io.Writer, entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		ExpectedFailures []Entry `json:"expectedFailures"`
	}{entries})
}
