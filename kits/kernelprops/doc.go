// Package kernelprops is the property kit of the reference kernel runtime (spec §1, §2, §3): random
// flows — steps, failing steps, decisions, emits (some repeating content), parks and parallel
// branches — are driven to completion through random crash points, restarts, resumes, random
// effect latencies and, optionally, a code change deployed by resumeAs. Each property names its
// clauses:
//
//   - emit-serving-model: every run's appended emits equal a timing-free model of the serving and
//     stamping rules of spec §3, computed from what flow code observed;
//   - emit-once: every emit statement is in the final log, exactly once where spec §3 can prove it;
//   - effects-per-start: an effect runs once per recorded start and never after its step completed;
//   - legacy-log: a log with its stamps stripped re-appends its pre-resume emits exactly once;
//   - replay-appends-nothing: re-running a finished flow over its log appends nothing and runs
//     no effect or decider;
//   - snapshot-equivalence: the state read through a snapshot plus the tail equals the fold of the
//     whole log, and a replay from it appends nothing;
//   - g2-unwired: every option present but unwired writes a byte-identical log;
//   - runtime-state-machine (stateful): several executions share one runtime while rapid
//     interleaves starts, right and wrong resumes, recoveries, crashes and restarts.
//
// The worked examples run first as fixed cases; rapid then draws random ones (-rapid.checks,
// default 100). A failure prints rapid's seed, the shrunk program and schedule, the runs and the
// log as NDJSON. Deliberately broken kernels (kernel.Hooks) prove each property bites.
//
//	func TestMyKernel(t *testing.T) { kernelprops.Run(t, kernelprops.Reference()) }
package kernelprops
