// Package kernelprops is the property kit of the reference kernel runtime (spec §1, §2, §3): random
// flows, drawn as flow scripts (loom-flowscript/2, goldens/flowscript: the one representation of a
// flow as data) and run by the flow-script interpreter on the fakes — steps (succeeding, failing untyped or typed, timing out, cancelled, emitting through
// EffectContext.emit, or at most once and parked in doubt by a crash, then given a verdict),
// decisions (some throwing), emits (repeating content in a segment, reusing an earlier segment's
// content, unmatchable, flow-level DECISION_RECORDED), parks and parallel branches whose emits
// meet each other and the code after the join — are driven to completion through random crash
// points, restarts, resumes, random effect latencies (the fakes' latencyUs, drawn per step) and, optionally, a code change deployed by
// resumeAs. Emit payloads carry only their content, so identical content in two segments or
// inside and outside a parallel is the same payload. Each property names its clauses:
//
//   - emit-serving-model: every run's appended emits equal a timing-free model of the serving and
//     stamping rules of spec §3, computed from what flow code observed (inside a parallel, per
//     branch: I-KERNEL-18);
//   - emit-once: every emit statement is in the final log, exactly once where spec §3 can prove it;
//   - effects-per-start: an effect runs once per recorded start and never after its step completed;
//   - legacy-log: a log with its stamps stripped re-appends its pre-resume emits exactly once;
//   - replay-appends-nothing: re-running a finished flow over its log appends nothing and runs
//     no effect, nor any decider the log answers (one that threw is asked again, I-KERNEL-1);
//   - snapshot-equivalence: at a drawn profile (1.20 to 1.26), the state read through a snapshot
//     plus the tail equals the fold of the whole log at that profile, and a replay from it appends
//     nothing;
//   - g2-unwired: every option present but unwired writes a byte-identical log;
//   - runtime-state-machine (stateful): several executions share one runtime while rapid
//     interleaves starts, right and wrong resumes, recoveries, crashes and restarts.
//
// The worked examples run first as fixed cases; rapid then draws random ones (-rapid.checks,
// default 100). A failure prints rapid's seed, the shrunk program as a flow script and the
// schedule, the runs and the log as NDJSON (with the script, the input of loom-conform replay). Deliberately broken kernels (kernel.Hooks) prove each property bites, and a
// frequency test over a fixed seed set keeps every path of the emit rule reached.
//
//	func TestMyKernel(t *testing.T) { kernelprops.Run(t, kernelprops.Reference()) }
package kernelprops
