package explore

import "context"

// Shrink cuts s, which disagrees as m, down to a script that still disagrees the same way
// (Mismatch.Same) and from which no single step can be removed without losing it: delta debugging
// over the steps, first in halves, then in smaller chunks, then step by step, with at most budget
// replays. It returns the smallest script found, its mismatch and the replays made. Steps after the
// mismatching one never matter and are cut first. A replay error ends shrinking with what it has.
func Shrink(ctx context.Context, s Script, m *Mismatch, replay Replay, budget int) (Script, *Mismatch, int, error) {
	best, bm := s, m
	if m.Step+1 < len(best.Steps) {
		best.Steps = best.Steps[:m.Step+1]
	}
	tried := 0
	try := func(steps []Step) (bool, error) {
		if tried >= budget {
			return false, nil
		}
		tried++
		cand := best
		cand.Steps = steps
		got, err := replay(ctx, cand)
		if err != nil || !got.Same(bm) {
			return false, err
		}
		best, bm = cand, got
		return true, nil
	}
	for chunk := len(best.Steps) / 2; chunk >= 1 && tried < budget; {
		cut := false
		for at := 0; at+chunk <= len(best.Steps) && tried < budget; {
			steps := append(append([]Step(nil), best.Steps[:at]...), best.Steps[at+chunk:]...)
			ok, err := try(steps)
			if err != nil {
				return best, bm, tried, err
			}
			if ok {
				cut = true
				continue // the same position now holds the next chunk
			}
			at += chunk
		}
		if !cut {
			chunk /= 2
		}
	}
	return best, bm, tried, nil
}
