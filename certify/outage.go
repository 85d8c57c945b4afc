package certify

import (
	"context"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
)

// outageWatch tells a check's verdict from an outage of its target (DESIGN §7.1 "whose fault",
// I-CERT-12). Both runners (stores and kernels) judge every check through it: after a check that
// did not settle, the target is probed — its own parts first (Running.Alive: the process, the
// container, the database), then its protocol (probe) — and one that is gone or frozen gets
// OutageWait to come back, then the check runs once more; one that stays down ends the run (gone),
// and the check it interrupted is not reported, since nothing about the target was learnt from it.
// A check left without a verdict while the target answers runs once more too: an outage that ended
// before the probe, or a stall of the machine, leaves no other trace.
type outageWatch struct {
	cfg     Config
	running *Running
	// probe asks the target's protocol for a cheap answer; what names it in a cause ("the bridge
	// at URL").
	probe func(ctx context.Context) error
	what  string
	// gone is the outage that ended the run ("" while the target is up).
	gone string
}

// judge runs one check (run returns its result and whether that verdict stands without a probe)
// and says whether it was judged (false: the run ends, w.gone says why).
func (w *outageWatch) judge(ctx context.Context, id string, run func() (CheckResult, bool)) (CheckResult, bool) {
	var rerun *Rerun // why the check runs again, once it does (I-CERT-60)
	for attempt := 0; ; attempt++ {
		res, settled := run()
		res.Rerun = rerun
		if settled || ctx.Err() != nil {
			return res, true
		}
		cause := w.outage(ctx)
		switch {
		case cause == "" && res.Verdict == kits.Unknown && attempt == 0:
			rerun = &Rerun{Why: "no verdict while the target answered", FirstVerdict: res.Verdict, FirstMessage: res.Message}
			fmt.Fprintf(w.cfg.Progress, "  %s: no verdict, and the target answers: running the check again\n", id)
			continue
		case cause == "":
			return res, true
		case attempt == 0:
			if cause = w.waitBack(ctx, cause); cause == "" {
				rerun = &Rerun{Why: "the target was down and came back", FirstVerdict: res.Verdict, FirstMessage: res.Message}
				fmt.Fprintf(w.cfg.Progress, "  %s: the target came back: running the check again\n", id)
				continue
			}
		}
		w.gone = fmt.Sprintf("%s (during %s; it did not come back within %s)", cause, id, w.cfg.OutageWait)
		return res, false
	}
}

// outage says what of the target is gone or frozen ("" when it is up).
func (w *outageWatch) outage(ctx context.Context) string {
	if w.running != nil && w.running.Alive != nil {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := w.running.Alive(actx)
		cancel()
		if err != nil {
			return err.Error()
		}
	}
	if w.probe == nil {
		return ""
	}
	if err := w.probe(ctx); err != nil {
		return fmt.Sprintf("%s does not answer (%v)", w.what, err)
	}
	return ""
}

// waitBack polls the target until it is up again ("") or OutageWait has passed (the last cause
// seen, which may say more than the first: a process that was dying has exited by then).
func (w *outageWatch) waitBack(ctx context.Context, cause string) string {
	fmt.Fprintf(w.cfg.Progress, "  the target is down: %s; waiting up to %s for it to come back\n", cause, w.cfg.OutageWait)
	deadline := time.Now().Add(w.cfg.OutageWait)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return cause
		case <-time.After(min(500*time.Millisecond, w.cfg.OutageWait)):
		}
		if cause = w.outage(ctx); cause == "" {
			return ""
		}
	}
	return cause
}

// outageError is the run's target error once an outage ended it.
func outageError(gone string, judged, total int) string {
	return fmt.Sprintf("the target failed during the run: %s; %d of %d checks were judged before it, the other %d were not run",
		gone, judged, total, total-judged)
}
