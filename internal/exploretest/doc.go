// Package exploretest holds what the tests of the seams' explorations share: a reference store
// (in memory, SQLite, PostgreSQL) must answer every seeded script as the in-memory oracle does.
package exploretest
