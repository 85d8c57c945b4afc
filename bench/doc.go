// Package bench measures the reference fold against general-purpose JSON decoders, on logs of
// this project's own generator (internal/loggen), and writes docs/performance.md. It is a module
// of its own so that the comparison decoders (goccy/go-json, bytedance/sonic) never become
// dependencies of loom-conform itself.
//
// Every figure is measured in CPU time of the process doing the work (the child process for the
// command line), interleaved over rounds in one run, the fastest round of each workload kept: on a
// shared machine other load only ever adds time. Ratios of two workloads of the same run are the
// figures to trust where the machine is noisy.
package bench
