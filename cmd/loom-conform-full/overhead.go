package main

import (
	"fmt"
	"time"
)

// overheadLine is the summary line of a runner that starts processes (I-PERF-12): how many it
// started and how much of the run was their start-up (from starting each to its first answer).
func overheadLine(what string, starts int, startup, run time.Duration) string {
	share := 0.0
	if run > 0 {
		share = 100 * startup.Seconds() / run.Seconds()
	}
	return fmt.Sprintf("processes: %d %s started; start-up (start to first answer) %s of the run's %s (%.1f %%)",
		starts, what, startup.Round(100*time.Microsecond), run.Round(time.Millisecond), share)
}
