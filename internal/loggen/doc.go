// Package loggen writes synthetic event logs of one execution as NDJSON for benchmarks and
// performance gates: Pairs, the plain shape (step start/complete pairs, a decision and an
// application event, round-robin), and Mix, a realistic mix of every kind of envelope a
// production log carries (retries, typed failures, repeated decisions, emits, metering, parks).
// Both are deterministic: the same n gives the same bytes.
package loggen
