package deploysim_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/internal/cputime"
)

// BenchmarkSimulation reports simulated executions/s and events/s of a whole run (fleet, the
// single-worker reference run and every invariant) per scenario, on one goroutine at a time.
func BenchmarkSimulation(b *testing.B) {
	for _, sc := range []string{"basic", "crash", "rolling-upgrade"} {
		b.Run(sc, func(b *testing.B) {
			execs, events := 0, 0
			cpu0 := cputime.Process()
			for i := 0; i < b.N; i++ {
				res := deploysim.Run(deploysim.Config{Scenario: sc, Seed: int64(i + 1)})
				if !res.OK() {
					b.Fatalf("seed %d: %v", i+1, res.Violations)
				}
				execs += res.Executions
				events += res.Events
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(execs)/s, "executions/s")
			b.ReportMetric(float64(events)/s, "events/s")
			// Per CPU-second: what one core does, whatever else shares the machine.
			if c := (cputime.Process() - cpu0).Seconds(); c > 0 {
				b.ReportMetric(float64(execs)/c, "executions/cpu-s")
			}
		})
	}
}
