package spec

// section3 holds replay semantics, emit serving (ADR 0102) and snapshots (spec §3).
func section3() []Clause {
	const sec = "§3"
	return []Clause{
		s("S3.resume.rerun-served", sec, Must, "resume re-runs the flow; each execute/run/decide/suspend short-circuits from the log so completed work is never repeated"),
		s("S3.emit.once", sec, Must, "emit, stream and ui append once per execution"),
		s("S3.emit.identity", sec, Must, "the emit digest is fnv1a64 of the segment, a bar, and the canonical JSON of [eventType, payload]"),
		s("S3.emit.segment", sec, Must, "the segment is the number of gate passthroughs consumed when the emit runs"),
		s("S3.emit.canonical-form", sec, Must, "the canonical form is the persisted JSON with object keys sorted"),
		s("S3.emit.stamp", sec, Must, "a stamped emit carries metadata.flowEmit equal to its digest"),
		s("S3.emit.fold-count", sec, Must, "the fold counts stamped emits per digest in variables._flowEmits"),
		s("S3.emit.serve-skip", sec, MustNot, "on a re-run the n-th emit of a digest is not appended when the log holds more than n stamped emits of it and no step or decision of the current segment ran live"),
		s("S3.emit.serve-append", sec, Must, "in every other case the emit is appended"),
		s("S3.emit.stamp-exceeds-count", sec, Must, "an appended emit is stamped only if it exceeds the logged count"),
		s("S3.emit.stamp-nothing-in-flight", sec, Must, "an appended emit is stamped only if none of the run's own effects or deciders is executing (an effect counts until it settles)"),
		s("S3.emit.stamp-nothing-unserved", sec, Must, "an appended emit is stamped only if no earlier step or decider ended in an outcome a re-run does not serve (untyped failure, timeout, cancellation, in-doubt park, throwing decider)"),
		s("S3.emit.never-timing", sec, MustNot, "emit skip decisions do not depend on timing or interleaving"),
		s("S3.emit.residual", sec, MustNot, "an emit is served in place of a new one only in the residual cases: moved identical content in a fully served segment, non-deterministic flow code, or a digest collision"),
		s("S3.emit.unmatchable-unstamped", sec, Must, "an emit whose payload has no JSON form is appended unstamped"),
		s("S3.emit.kernel-facts-unstamped", sec, MustNot, "kernel facts (STEP_*, DECISION_RECORDED, EFFECT_INDOUBT, EXECUTION_*) and EffectContext.emit are never stamped"),
		s("S3.emit.legacy-log", sec, Must, "an unstamped legacy log counts nothing, so its pre-resume emits are appended once more, stamped where eligible"),
		s("S3.fold.copy-on-write", sec, MustNot, "the fold never mutates a caller-visible state in place (copy-on-write)"),
		s("S3.fold.structural-sharing", sec, Should, "audit lists grow by structural sharing within one fold pass, keeping the fold linear"),
		s("S3.snapshot.equivalence", sec, Must, "folding a snapshot plus the log suffix equals folding the whole log"),
		s("S3.snapshot.out-of-band", sec, MustNot, "snapshots are out of band: there is no snapshot event in the log"),
		s("S3.determinism.enforced", sec, Must, "determinism is enforced by golden-log replay, the wire fold vectors and deploy simulation"),
	}
}
