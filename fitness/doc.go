// Package fitness holds the fitness gates of spec §10 as data — id, the guarantee and clause ids
// it protects, what it runs (catalog checks through `go test`, a benchmark metric, an interleaved
// A/B ratio, clause coverage), its threshold and where CI enforces it — and the runner behind
// `loom-conform fitness`.
//
// Ratio gates (the G2 zero-overhead gate among them) measure A, B and a control A' interleaved in
// one process and judge the 95 % interval of B/A, widened by the A/A bias of the same run, against
// their limit; while the interval straddles the limit they measure more rounds, so a noisy machine
// makes a measurement longer, not a verdict (I-PERF-1..3).
//
//	results := fitness.Run(ctx, fitness.Gates(), fitness.Options{Checks: catalog.Checks()})
//	report := fitness.NewReport(results)
//	_ = report.RenderTable(os.Stdout)
//	if report.Failed { os.Exit(1) }
package fitness
