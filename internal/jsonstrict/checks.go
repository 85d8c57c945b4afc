package jsonstrict

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the strict JSON check.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "json/strict", Kind: spec.KindTest, Clauses: []string{"I-NET-5", "I-NET-6"}, Where: "internal/jsonstrict:TestCheck"},
		{ID: "json/depth-names-limit", Kind: spec.KindTest, Clauses: []string{"I-NET-5"}, Where: "internal/jsonstrict:TestDepthRefusalNamesTheLimit"},
		{ID: "json/inexact-says-value", Kind: spec.KindTest, Clauses: []string{"I-NET-6"}, Where: "internal/jsonstrict:TestInexactSaysWhatItWouldBe"},
		{ID: "json/fuzz-strict", Kind: spec.KindFuzz, Clauses: []string{"I-NET-5"}, Where: "internal/jsonstrict:FuzzCheck"},
	}
}
