package certify_test

import (
	"context"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
)

// BenchmarkCertifyKernelExec is `certify kernel --exec 'loom-conform serve-kernel'` (and with
// --wave2): the whole run, the subprocess's start and stop included, every check of the kit.
// Target (issue 26): under 5 s of wall time on a quiet machine; docs/wire.md, "Performance".
func BenchmarkCertifyKernelExec(b *testing.B) {
	bin := certifytest.Binary(b)
	for _, tc := range []struct{ name, args string }{{"wave1", ""}, {"wave2", " --wave2"}} {
		b.Run(tc.name, func(b *testing.B) {
			checks := 0
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				rep, err := certify.RunKernel(ctx, certify.ExecTarget{Command: bin + " serve-kernel" + tc.args},
					certify.Config{Kinds: []string{certify.KernelKind}, Seed: 1})
				cancel()
				if err != nil || !rep.Certified() {
					b.Fatalf("certify kernel --exec serve-kernel%s: %v %s %+v", tc.args, err, rep.Verdict, rep.Summary)
				}
				checks = len(rep.Checks)
			}
			b.ReportMetric(float64(checks), "checks/op")
		})
	}
}
