package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/internal/loggen"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// buildCLI builds loom-conform (of the enclosing checkout) into dir, and beside it jsondecode, the
// fold's baseline end to end (Stages runs it).
func buildCLI(tb testing.TB, dir string) string {
	tb.Helper()
	bin := filepath.Join(dir, "loom-conform")
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/loom-conform", "./internal/jsonbase/jsondecode")
	cmd.Dir = ".." // the main module: its own dependencies, not this module's
	// Pure Go, as make build and the release build it (a cgo build pays the dynamic loader).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("go build loom-conform: %v\n%s", err, out)
	}
	return bin
}

// logs are the table's two logs: the plain shape and the realistic mix, 100 000 envelopes each.
func tableLogs(tb testing.TB, dir string) map[string]string {
	out := map[string]string{}
	for kind, b := range map[string][]byte{"pairs": loggen.Pairs(100_000), "mix": loggen.Mix(100_000)} {
		f := filepath.Join(dir, kind+".ndjson")
		if err := os.WriteFile(f, b, 0o600); err != nil {
			tb.Fatal(err)
		}
		out[kind] = f
	}
	return out
}

// BenchmarkTable reproduces the decoder table: MB per CPU second of each decoder, the fold in
// process and the command line end to end, on both logs, and each row's speed relative to
// encoding/json measured in the same run.
func BenchmarkTable(b *testing.B) {
	dir := b.TempDir()
	ws := Workloads(buildCLI(b, dir))
	for kind, file := range tableLogs(b, dir) {
		log, _ := os.ReadFile(file)
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				rows, err := Table(ws, log, file, 3)
				if err != nil {
					b.Fatal(err)
				}
				for i, r := range rows {
					b.ReportMetric(r.MBPerCPUs, ws[i].Metric+"-MB/cpu-s")
				}
			}
		})
	}
}

// BenchmarkFoldScaling reports the fold's per-envelope CPU cost at 10^6 envelopes over its cost at
// 10^4 (flat is 1) and (decode+fold)/decode at 10^6, each as the Hodges–Lehmann estimate over interleaved rounds
// measured with the fitness gates' method (fitness.Measure).
func BenchmarkFoldScaling(b *testing.B) {
	for b.Loop() {
		flat, ratio, err := scaling(5)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(flat.Figure, "cost@1e6/cost@1e4")
		b.ReportMetric(ratio.Figure, "(decode+fold)/decode@1e6")
	}
}

// scaling measures flatness and the 10^6 ratio with rounds interleaved rounds each.
func scaling(rounds int) (flat, ratio fitness.Judgement, err error) {
	small, big := loggen.Mix(10_000), loggen.Mix(1_000_000)
	foldN := func(raw []byte, times int) func() error {
		return func() error {
			for range times {
				if _, err := fold.FoldBytes(fold.Current(), nil, raw); err != nil {
					return err
				}
			}
			return nil
		}
	}
	s, err := fitness.Measure(fitness.Pair{A: foldN(small, 100), B: foldN(big, 1)}, rounds, time.Millisecond)
	if err != nil {
		return flat, ratio, err
	}
	flat = fitness.JudgeMax(s, 1.2)
	// the collector stays on: the decode allocates several times what the fold does (I-PERF-4)
	s, err = fitness.Measure(fitness.Pair{
		A:      func() error { _, err := fold.DecodeLogBytes(big); return err },
		B:      foldN(big, 1),
		WithGC: true,
	}, rounds, time.Millisecond)
	if err != nil {
		return flat, ratio, err
	}
	return flat, fitness.JudgeMax(s, 1.5), nil
}

// stateEncodingSpeedup runs the fold package's own state-encoding benchmark and returns its
// reference/direct ratio.
func stateEncodingSpeedup() (string, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkStateEncoding", "-benchtime", "3x", "./reference/fold")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	var parts []string
	for _, re := range []string{`direct-\d+\s.*?([\d.]+) allocs/frame\s+([\d.]+) frames/s`, `reference-\d+\s.*?([\d.]+) allocs/frame\s+([\d.]+) frames/s`, `([\d.]+) reference/direct`} {
		m := regexp.MustCompile(re).FindStringSubmatch(string(out))
		if m == nil {
			return "", fmt.Errorf("no %q in\n%s", re, out)
		}
		parts = append(parts, m[1:]...)
	}
	return fmt.Sprintf("| direct (AppendState) | %s | %s |\n| reference tree encoding (before) | %s | %s |\n\nreference/direct CPU time, interleaved in the same run: **%s×**\n",
		parts[1], parts[0], parts[3], parts[2], parts[4]), nil
}

// TestWritePerformanceDoc measures every figure and writes docs/performance.md when
// LOOM_PERF_DOC names the file (make perf-doc). LOOM_PERF_BIG=N also folds an N-byte generated
// log end to end and reports its peak RSS.
func TestWritePerformanceDoc(t *testing.T) {
	path := os.Getenv("LOOM_PERF_DOC")
	if path == "" {
		t.Skip("set LOOM_PERF_DOC=../docs/performance.md (make perf-doc) to measure and write the figures")
	}
	dir := t.TempDir()
	cli := buildCLI(t, dir)
	var doc strings.Builder
	doc.WriteString("# Performance\n\n<!-- generated by `make perf-doc` (bench/bench_test.go): do not edit -->\n\n")
	doc.WriteString("Measured on the machine that ran `make perf-doc`, in CPU time of the process doing the work (the\n" +
		"child process for the command line), workloads interleaved over rounds in one run, the fastest\n" +
		"round kept. On a shared machine absolute figures move with the load; the ratios of one run are\n" +
		"the figures to compare.\n\n")
	fmt.Fprintf(&doc, "Generated %s, %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuInfo())
	memory := memorySection(t, dir, cli)
	logs := tableLogs(t, dir)
	doc.WriteString(cliSection(t, dir, cli) + "\n\n")
	start, err := StartCPU(cli, 9)
	if err != nil {
		t.Fatal(err)
	}
	const runs, rounds = 5, 3
	for _, kind := range []string{"pairs", "mix"} {
		log, _ := os.ReadFile(logs[kind])
		rows, err := TableRuns(Workloads(cli), log, logs[kind], runs, rounds)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&doc, "## Decoders and the fold: `%s` log, 100 000 envelopes, %.1f MB\n\n"+
			"MB per CPU-second: min / median / max over %d runs, each the fastest of %d interleaved rounds.\n\n"+
			"| what | min | median | max | median × encoding/json |\n| --- | ---: | ---: | ---: | ---: |\n", kind, float64(len(log))/1e6, runs, rounds)
		for _, r := range rows {
			fmt.Fprintf(&doc, "| %s | %.0f | %.0f | %.0f | %.2f |\n", r.Name, r.Lo, r.Med, r.Hi, r.MedianVsStdlib)
		}
		cliRow := rows[len(rows)-1]
		cliCPU := time.Duration(float64(len(log)) / 1e6 / cliRow.Med * float64(time.Second))
		fmt.Fprintf(&doc, "\nOf the command line's median %.0f ms, %.0f ms is starting the process (`loom-conform version`, fastest of 9:\n"+
			"the runtime and the package initialisation of every command the binary carries); the rest, reading,\n"+
			"folding and writing, runs at %.0f MB per CPU-second.\n\n",
			cliCPU.Seconds()*1e3, start.Seconds()*1e3, float64(len(log))/1e6/max(cliCPU-start, time.Millisecond).Seconds())
	}
	enc, err := stateEncodingSpeedup()
	if err != nil {
		t.Fatal(err)
	}
	doc.WriteString("## Canonical state encoding (fold of the 100 000-envelope mix)\n\n| encoder | frames/s | allocations/frame |\n| --- | ---: | ---: |\n" + enc + "\n")
	var flats, ratios []float64
	for range 5 {
		flat, ratio, err := scaling(3)
		if err != nil {
			t.Fatal(err)
		}
		flats, ratios = append(flats, flat.Figure), append(ratios, ratio.Figure)
	}
	doc.WriteString("## Scaling (the mix log, `fold.FoldBytes`), 5 measurements of 3 interleaved rounds each (the Hodges–Lehmann estimate of each), min/median/max over the 5\n\n| figure | min | median | max | target |\n| --- | ---: | ---: | ---: | ---: |\n")
	lo, med, hi := Spread(flats)
	fmt.Fprintf(&doc, "| CPU per envelope at 10^6 / at 10^4 | %.2f | %.2f | %.2f | ≤ 1.2 |\n", lo, med, hi)
	lo, med, hi = Spread(ratios)
	fmt.Fprintf(&doc, "| (decode+fold)/decode at 10^6 | %.2f | %.2f | %.2f | ≤ 1.5 |\n\n", lo, med, hi)
	doc.WriteString(memory)
	doc.WriteString(networkSection(t, cli))
	if rates, err := os.ReadFile(os.Getenv("LOOM_PERF_FUZZ")); err == nil && len(rates) > 0 {
		doc.WriteString("## Fuzzing throughput (scripts/fuzz-rate.sh)\n\n")
		doc.Write(rates)
		doc.WriteString("\n")
	}
	doc.WriteString(generatorSection(t, ".."))
	// The verdict-stability section is measured by `make stability` (cmd/stability), which takes
	// an hour under load, the exploration section by the kits' benchmark and broken-store tests
	// (kits, kits/broken), and the race-detection rates by `make seed-rate`: keep the ones the
	// file holds.
	if old, err := os.ReadFile(path); err == nil {
		for _, name := range []string{"stability", "exploration", "races"} {
			begin, end := "<!-- "+name+":begin", "<!-- "+name+":end -->"
			if i, j := strings.Index(string(old), begin), strings.Index(string(old), end); i >= 0 && j > i {
				doc.WriteString("\n" + string(old[i:j+len(end)]) + "\n")
			}
		}
	}
	if err := os.WriteFile(path, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// memorySection folds a generated log of LOOM_PERF_BIG bytes with the command line and returns the
// section reporting its peak RSS ("" when the variable is unset). It runs before the other
// measurements fill this process's memory: the peak resident set the kernel reports for a child
// started with os/exec includes this process's own at the moment the child was started (the
// child shares its memory until it executes the command), so the figure is the command's only
// while this process stays the smaller.
func memorySection(tb testing.TB, dir, cli string) string {
	big := os.Getenv("LOOM_PERF_BIG")
	if big == "" {
		return ""
	}
	if _, err := strconv.ParseInt(big, 10, 64); err != nil {
		tb.Fatalf("LOOM_PERF_BIG: %v", err)
	}
	f := filepath.Join(dir, "big.ndjson")
	gen := exec.Command("go", "run", "./cmd/loggen", "-kind", "mix", "-bytes", big)
	out, err := os.Create(f)
	if err != nil {
		tb.Fatal(err)
	}
	gen.Stdout = out
	if err := gen.Run(); err != nil {
		tb.Fatal(err)
	}
	out.Close()
	st, _ := os.Stat(f)
	rss, cpu, err := MaxRSS(cli, f)
	if err != nil {
		tb.Fatal(err)
	}
	rss100, cpu100, err := MaxRSS(cli, f, "GOGC=100")
	if err != nil {
		tb.Fatal(err)
	}
	os.Remove(f)
	mb, gb := float64(st.Size())/1e6, float64(st.Size())/1e9
	return fmt.Sprintf("## Memory: `loom-conform fold` of a %.2f GB NDJSON log (the mix, repeated)\n\n"+
		"Peak RSS **%.0f MB** (%.4f of the log's size); %.0f MB per CPU-second. The command holds the collector\n"+
		"off until its heap first reaches 64 MiB, then paces it at GOGC=400 until the live heap passes 32 MiB;\n"+
		"with GOGC=100 set (the default pace throughout):\n"+
		"peak RSS %.0f MB, %.0f MB per CPU-second.\n\n",
		gb, float64(rss)/1e6, float64(rss)/float64(st.Size()), mb/cpu.Seconds(), float64(rss100)/1e6, mb/cpu100.Seconds())
}

func cpuInfo() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	if m := regexp.MustCompile(`model name\s*:\s*(.*)`).FindSubmatch(b); m != nil {
		return fmt.Sprintf("%s, %d logical CPUs", strings.TrimSpace(string(m[1])), strings.Count(string(b), "processor\t:"))
	}
	return "unknown CPU"
}
