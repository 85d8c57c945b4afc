package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestWriteCountsAndRoundTrips(t *testing.T) {
	s := Suite{Name: "k"}
	s.Add(Case{Name: "ok", Time: "0"})
	s.Add(Case{Name: "bad", Time: "0", Failure: &Message{Message: "x <y> & z"}})
	s.Add(Case{Name: "hung", Time: "0", Error: &Message{Message: "timeout"}})
	s.Add(Case{Name: "n/a", Time: "0", Skipped: &Message{Message: "not claimed"}})
	if s.Tests != 4 || s.Failures != 1 || s.Errors != 1 || s.Skipped != 1 {
		t.Fatalf("Add counts = %d/%d/%d/%d, want 4/1/1/1", s.Tests, s.Failures, s.Errors, s.Skipped)
	}
	var b bytes.Buffer
	if err := Write(&b, Suites{Suites: []Suite{s}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) || !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("Write output lacks header or final newline:\n%s", b.String())
	}
	var back Suites
	if err := xml.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got := back.Suites[0].Cases[1].Failure.Message; got != "x <y> & z" {
		t.Fatalf("failure message round trip = %q", got)
	}
}
