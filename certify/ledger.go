package certify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Expectation is one entry of an expected-failures ledger: a check the store is known to fail, why,
// and optionally until when the entry holds (YYYY-MM-DD, UTC; past it the entry itself fails the run).
type Expectation struct {
	Check   string `json:"check"`
	Reason  string `json:"reason"`
	Expires string `json:"expires,omitempty"`
}

// Ledger is the parsed --expected-failures file:
//
//	{"expectedFailures": [{"check": "eventstore/fence-if-race", "reason": "…", "expires": "2027-01-31"}]}
type Ledger struct {
	File    string        `json:"file"`
	Entries []Expectation `json:"expectedFailures"`
}

// ReadLedger reads and checks a ledger file. Errors name the file, the entry index and the field.
func ReadLedger(path string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseLedger(path, b)
}

// ParseLedger parses ledger bytes (name is used in messages).
func ParseLedger(name string, b []byte) (*Ledger, error) {
	var doc struct {
		ExpectedFailures []Expectation `json:"expectedFailures"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v (want {\"expectedFailures\": [{\"check\", \"reason\", \"expires\"?}]})", name, err)
	}
	if doc.ExpectedFailures == nil {
		return nil, fmt.Errorf("%s: field expectedFailures is missing", name)
	}
	seen := map[string]bool{}
	for i, e := range doc.ExpectedFailures {
		switch {
		case e.Check == "":
			return nil, fmt.Errorf("%s: expectedFailures[%d].check is empty", name, i)
		case e.Reason == "":
			return nil, fmt.Errorf("%s: expectedFailures[%d].reason is empty (say why %s is expected to fail)", name, i, e.Check)
		case seen[e.Check]:
			return nil, fmt.Errorf("%s: expectedFailures[%d].check %q is listed twice", name, i, e.Check)
		}
		seen[e.Check] = true
		if e.Expires != "" {
			if _, err := time.Parse(time.DateOnly, e.Expires); err != nil {
				return nil, fmt.Errorf("%s: expectedFailures[%d].expires %q: want YYYY-MM-DD", name, i, e.Expires)
			}
		}
	}
	return &Ledger{File: name, Entries: doc.ExpectedFailures}, nil
}

// Lookup returns the entry for check.
func (l *Ledger) Lookup(check string) (Expectation, bool) {
	if l == nil {
		return Expectation{}, false
	}
	for _, e := range l.Entries {
		if e.Check == check {
			return e, true
		}
	}
	return Expectation{}, false
}

// Expired reports whether e's expiry day is over at now.
func (e Expectation) Expired(now time.Time) bool {
	if e.Expires == "" {
		return false
	}
	t, err := time.Parse(time.DateOnly, e.Expires)
	return err == nil && !now.UTC().Before(t.Add(24*time.Hour))
}
