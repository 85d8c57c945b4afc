package redact

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the redactor.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "redact/dsn-forms", Kind: spec.KindTest, Clauses: []string{"I-NET-7"}, Where: "internal/redact:TestDSN"},
		{ID: "redact/stranded-tail", Kind: spec.KindTest, Clauses: []string{"I-NET-7"}, Where: "internal/redact:TestScrubTheStrandedTail"},
		{ID: "redact/reports-and-streams", Kind: spec.KindTest, Clauses: []string{"I-NET-7"}, Where: "internal/redact:TestWalkAndWriter"},
		{ID: "redact/url-userinfo", Kind: spec.KindTest, Clauses: []string{"I-NET-40"}, Where: "internal/redact:TestURL"},
		{ID: "redact/every-form", Kind: spec.KindTest, Clauses: []string{"I-NET-40"}, Where: "internal/redact:TestEveryFormScrubbed"},
		{ID: "redact/command-lines", Kind: spec.KindTest, Clauses: []string{"I-NET-40"}, Where: "internal/redact:TestAddText"},
	}
}
