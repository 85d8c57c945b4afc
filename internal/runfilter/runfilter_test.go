package runfilter

import (
	"strings"
	"testing"
)

// Reference: I-CERT-32 — a --run that selects nothing is an error naming the pattern and ids.
func TestSelects(t *testing.T) {
	ids := []string{"bridge/handshake", "eventstore/append-conflict", "eventstore/append-read-order", "eventstore/read-range-bounds", "snapshotstore/save"}
	if err := Selects(nil, "check", ids); err != nil {
		t.Errorf("Selects(no pattern) = %v", err)
	}
	re, _ := Compile("append-read")
	if err := Selects(re, "check", ids); err != nil {
		t.Errorf("Selects(a matching pattern) = %v", err)
	}
	re, _ = Compile("eventstore/append-conflit")
	err := Selects(re, "check", ids)
	if err == nil || !strings.Contains(err.Error(), `--run "eventstore/append-conflit" selects no check (of 5: eventstore/append-conflict, eventstore/append-read-order`) {
		t.Errorf("Selects(a typo) = %v, want the pattern and the nearest ids first", err)
	}
	if _, err := Compile("("); err == nil || !strings.Contains(err.Error(), `--run "("`) {
		t.Errorf("Compile(bad pattern) = %v", err)
	}
}
