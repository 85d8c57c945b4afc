// Package junit holds the JUnit XML shapes (the common Ant/Jenkins dialect) that the certify and
// vectors reports write, and the one function that writes them.
//
//	s := junit.Suite{Name: "vectors/fold"}
//	s.Add(junit.Case{Name: "v1", Time: "0.001"})
//	err := junit.Write(w, junit.Suites{Suites: []junit.Suite{s}})
package junit

import (
	"encoding/xml"
	"io"

	"github.com/loom-kernel/loom-conform/internal/safetext"
)

// Suites is the document root.
type Suites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr,omitempty"`
	Tests    int      `xml:"tests,attr,omitempty"`
	Failures int      `xml:"failures,attr,omitempty"`
	Errors   int      `xml:"errors,attr,omitempty"`
	Skipped  int      `xml:"skipped,attr,omitempty"`
	Time     string   `xml:"time,attr,omitempty"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one test suite.
type Suite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Errors     int        `xml:"errors,attr"`
	Skipped    int        `xml:"skipped,attr"`
	Time       string     `xml:"time,attr,omitempty"`
	Properties []Property `xml:"properties>property,omitempty"`
	Cases      []Case     `xml:"testcase"`
}

// Property is one name/value pair of a suite's properties (the run's verdict, its options).
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one test case; at most one of Failure, Error and Skipped is set.
type Case struct {
	Name      string   `xml:"name,attr"`
	ClassName string   `xml:"classname,attr"`
	File      string   `xml:"file,attr,omitempty"`
	Time      string   `xml:"time,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Error     *Message `xml:"error,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Message is the body of a failure, error or skip.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// Add appends c to the suite and counts it.
func (s *Suite) Add(c Case) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

// Write writes the document with an XML header, indented, ending in a newline. Messages, bodies,
// output and property values are made visible first (safetext.Visible): a target's escape
// sequence or control character shows as \x1b, never as a character XML refuses.
func Write(w io.Writer, doc Suites) error {
	doc.Suites = append([]Suite(nil), doc.Suites...)
	for i := range doc.Suites {
		s := &doc.Suites[i]
		s.Properties = append([]Property(nil), s.Properties...)
		for j := range s.Properties {
			s.Properties[j].Value = safetext.Visible(s.Properties[j].Value)
		}
		s.Cases = append([]Case(nil), s.Cases...)
		for j := range s.Cases {
			c := &s.Cases[j]
			c.Name, c.SystemOut = safetext.Line(c.Name), safetext.Visible(c.SystemOut)
			for _, m := range []**Message{&c.Failure, &c.Error, &c.Skipped} {
				if *m != nil {
					v := **m
					v.Message, v.Body = safetext.Visible(v.Message), safetext.Visible(v.Body)
					*m = &v
				}
			}
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
