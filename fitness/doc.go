// Package fitness holds the fitness gates of spec §10 as data — id, the guarantee and clause ids
// it protects, what it runs (catalog checks through `go test`, a benchmark metric, an interleaved
// A/B ratio, clause coverage), its threshold and where CI enforces it — and the runner behind
// `loom-conform fitness`.
//
// Ratio gates (the G2 zero-overhead gate among them) measure A and B interleaved in one process
// and judge the median B/A beyond the noise that A/A rounds of the same run show, so a noisy
// machine yields unknown and a re-measurement, never a false failure.
//
//	results := fitness.Run(ctx, fitness.Gates(), fitness.Options{Checks: catalog.Checks()})
//	report := fitness.NewReport(results)
//	_ = report.RenderTable(os.Stdout)
//	if report.Failed { os.Exit(1) }
package fitness
