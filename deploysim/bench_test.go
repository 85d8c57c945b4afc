package deploysim_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/deploysim"
)

// BenchmarkSimulation reports simulated executions/s and events/s of a whole run (fleet, the
// single-worker reference run and every invariant) per scenario, on one goroutine at a time.
func BenchmarkSimulation(b *testing.B) {
	for _, sc := range []string{"basic", "crash", "rolling-upgrade"} {
		b.Run(sc, func(b *testing.B) {
			execs, events := 0, 0
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
		})
	}
}
