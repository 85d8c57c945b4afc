package safetext

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the escaping of target text.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "text/escapes", Kind: spec.KindTest, Clauses: []string{"I-NET-8"}, Where: "internal/safetext:TestEscapes"},
		{ID: "text/fuzz-visible", Kind: spec.KindFuzz, Clauses: []string{"I-NET-8"}, Where: "internal/safetext:FuzzVisible"},
	}
}
