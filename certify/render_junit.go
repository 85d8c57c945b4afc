package certify

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one suite per kit, one case per check. A failing
// check is a failure, an unknown one an error, a skipped one skipped; a listed expected failure
// passes with its reason in system-out.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "loom-conform certify " + strings.Join(r.Kinds, ","), Time: secs(r.DurationMs)}
	idx := map[string]int{}
	for _, c := range r.Checks {
		i, ok := idx[c.Kit]
		if !ok {
			i = len(out.Suites)
			idx[c.Kit] = i
			out.Suites = append(out.Suites, junitSuite{Name: c.Kit})
		}
		s := &out.Suites[i]
		jc := junitCase{Name: c.ID, ClassName: "loom." + c.Kit, Time: secs(c.DurationMs)}
		head := fmt.Sprintf("[%s] %s", strings.Join(c.Clauses, " "), c.Level)
		body := fmt.Sprintf("%s\n%s\nreproduce: %s", head, c.Message, c.Repro)
		switch {
		case c.Blocking && c.Verdict == kits.Unknown:
			jc.Error = &junitMessage{Message: "unknown: " + firstLine(c.Message), Type: "unknown", Body: body}
			s.Errors++
		case c.Blocking:
			jc.Failure = &junitMessage{Message: firstLine(c.Why + ": " + c.Message), Type: string(c.Verdict), Body: body}
			s.Failures++
		case c.Verdict == kits.Skip:
			jc.Skipped = &junitMessage{Message: firstLine(c.Message)}
			s.Skipped++
		case c.Verdict != kits.Pass:
			jc.SystemOut = fmt.Sprintf("%s (not blocking: %s)\n%s", c.Verdict, notBlocking(c), body)
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func notBlocking(c CheckResult) string {
	if c.Expected != nil {
		return "expected failure: " + c.Expected.Reason
	}
	return "level " + string(c.Level)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func secs(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
