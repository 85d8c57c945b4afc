package postgres

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "reference/dispatch/postgres-kit", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "I-DISPATCH-1", "I-DISPATCH-4"},
			Where: "reference/dispatch/postgres:TestPostgresDispatcherKit"},
	}
}
