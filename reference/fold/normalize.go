package fold

// NormalizeSnapshotState reads a snapshot written by a fold of profile writtenBy so that folding
// the rest of the log onto it as the current profile equals folding the whole log (spec §4):
//
//   - before 1.21.0 a STEP_FAILED failed the execution. A failed snapshot without _error (an
//     EXECUTION_FAILED always recorded one) was failed by a step: it becomes running, or suspended
//     with _failedWhileParked when it still holds _suspendedOn. Two shapes cannot be told from a
//     genuine failure (ADR 0105 D4, spec §4): an EXECUTION_FAILED without error, and a
//     resumeAs-reopened failure (stale _error) that then caught a step failure; the remedy is to
//     delete that execution's snapshots. A third shape exists by interpretation (I-FOLD-20): a
//     1.20 fold also failed a completed or cancelled execution when a late sibling STEP_FAILED
//     landed after it ended. Its snapshot is byte-identical to that of a caught step failure, so it
//     is read as running too (the same remedy applies).
//   - before 1.26.0 settled frames kept their input: it is stripped, in one pass over the frames.
//   - a _decisions entry without seq (written by 1.23.0 or a mixed fleet) stays without one: a seq
//     is never invented (1.24.0).
//
// The input state is not modified. It is NormalizeSnapshotFor(s, writtenBy, Current()).
func NormalizeSnapshotState(s State, writtenBy Profile) State {
	return NormalizeSnapshotFor(s, writtenBy, Current())
}

// NormalizeSnapshotFor reads a snapshot written by profile writtenBy for a fold of profile readBy
// (I-FOLD-25): each step above applies only when the writer predates the change and the reader
// has it, so a snapshot read by the profile that wrote it (or by any profile no newer than a
// change) is unchanged by that step: a 1.25 snapshot read as 1.25 keeps its settled inputs.
func NormalizeSnapshotFor(s State, writtenBy, readBy Profile) State {
	out := s.clone()
	if writtenBy.stepFailedFailsExecution() && !readBy.stepFailedFailsExecution() && out.Status == StatusFailed {
		if _, genuine := out.Variables.Values[VarError]; !genuine {
			ps := pass{p: Current(), s: &out}
			if ps.hasVar(VarSuspendedOn) {
				out.Status = StatusSuspended
				ps.setVar(VarFailedWhileParked, rawTrue)
			} else {
				out.Status = StatusRunning
			}
		}
	}
	if !writtenBy.dropSettledInput() && readBy.dropSettledInput() {
		for id, fr := range out.Frames {
			if fr.Input != nil && settled(fr.Status) {
				fr.Input = nil
				out.Frames[id] = fr
			}
		}
	}
	return out
}

func settled(status string) bool {
	return status == FrameCompleted || status == FrameFailed || status == FrameCancelled
}
