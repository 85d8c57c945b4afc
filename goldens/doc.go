// Package goldens will hold recorded logs of a corpus of reference flows and the replay and diff
// tools over them (replayAsFixture, diffRuns): re-running a flow over its golden log must append
// nothing and fold byte-identically (spec §3, §10). Nothing here is implemented yet.
package goldens
