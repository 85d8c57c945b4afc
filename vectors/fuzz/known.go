package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Known is a ledger of disagreement classes to set aside: root causes already understood (a
// deliberate deviation, a bug being fixed) whose logs would hide a second cause.
//
//	{"knownClasses": [{"class": "[EXECUTION_STARTED] @ error invalid-envelope / output", "reason": "we read numeric strings, #41"}]}
type Known struct {
	Classes []KnownClass `json:"knownClasses"`
}

// KnownClass is one entry: a class key as `vectors fuzz` prints it, and why it is set aside.
type KnownClass struct {
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

// Lookup returns the reason a class is set aside ("" when it is not, or k is nil).
func (k *Known) Lookup(key string) string {
	if k == nil {
		return ""
	}
	for _, c := range k.Classes {
		if c.Class == key {
			return c.Reason
		}
	}
	return ""
}

// ParseKnown reads a ledger of known classes, strictly: an unknown member, a blank class or
// reason, a repeated class or trailing data is an error naming the entry and field.
func ParseKnown(name string, data []byte) (*Known, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var k Known
	if err := dec.Decode(&k); err != nil {
		return nil, fmt.Errorf("%s: %v (want {\"knownClasses\": [{\"class\", \"reason\"}]})", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: data after the ledger object", name)
	}
	seen := map[string]bool{}
	for i, c := range k.Classes {
		switch {
		case strings.TrimSpace(c.Class) == "":
			return nil, fmt.Errorf("%s: knownClasses[%d].class: blank", name, i)
		case strings.TrimSpace(c.Reason) == "":
			return nil, fmt.Errorf("%s: knownClasses[%d].reason: blank (say why the class is set aside)", name, i)
		case seen[c.Class]:
			return nil, fmt.Errorf("%s: knownClasses[%d].class: %q is listed twice", name, i, c.Class)
		}
		seen[c.Class] = true
	}
	return &k, nil
}

// WriteKnown writes a ledger listing every class of res (keeping the reasons of those already set
// aside), for a person to give each new one its reason.
func WriteKnown(w io.Writer, res Result) error {
	k := Known{Classes: []KnownClass{}}
	for _, c := range res.Classes {
		reason := c.Known
		if reason == "" {
			reason = fmt.Sprintf("TODO: why this class is set aside (first seen at seed %d)", c.Finding.Seed)
		}
		k.Classes = append(k.Classes, KnownClass{Class: c.Key, Reason: reason})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(k)
}
