package bench

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkStartup reports the start of `loom-conform version` and of a fold of an empty log over
// a hello-world Go program built by the same toolchain, in child CPU time, measured in one run
// (I-PERF-10; the target is ≤ 2).
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	cli, hello := buildCLI(b, dir), buildHello(b, dir)
	for b.Loop() {
		s, err := Startup(cli, hello, dir, 30)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(s[1].CPU)/float64(s[0].CPU), "version/hello")
		b.ReportMetric(float64(s[2].CPU)/float64(s[0].CPU), "fold-empty/hello")
	}
}

// BenchmarkFoldStages reports each stage of `loom-conform fold` on the table's two logs as a
// fraction of encoding/json's bare decode of the same bytes, measured in one run, and the command
// end to end as a speed-up over that decode (I-PERF-11; the target is ≥ 2).
func BenchmarkFoldStages(b *testing.B) {
	dir := b.TempDir()
	cli := buildCLI(b, dir)
	for kind, file := range tableLogs(b, dir) {
		b.Run(kind, func(b *testing.B) {
			for b.Loop() {
				st, err := Stages(cli, file, 5)
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range st[1:] {
					b.ReportMetric(float64(s.CPU)/float64(st[0].CPU), strings.ReplaceAll(strings.SplitN(s.Name, ":", 2)[0], " ", "")+"/json")
				}
				b.ReportMetric(float64(st[0].CPU)/float64(st[len(st)-1].CPU), "json/end-to-end")
			}
		})
	}
}

func buildHello(tb testing.TB, dir string) string {
	tb.Helper()
	bin, err := BuildHello(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// cliSection measures the command line's start and the stages of its fold and returns the
// section of docs/performance.md that reports them, between the cli markers.
func cliSection(tb testing.TB, dir, cli string) string {
	tb.Helper()
	var doc strings.Builder
	doc.WriteString(cliBegin + "\n\n## The command line: start-up and `fold` end to end (`make perf-cli`)\n\n")
	fmt.Fprintf(&doc, "Generated %s, %s. Child processes in CPU time (user + system), each workload the fastest of its\n"+
		"rounds, the workloads interleaved in one run: the ratios are the figures to compare.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), cpuInfo())
	const startRounds, runs = 40, 5
	doc.WriteString(fmt.Sprintf("### Start-up (I-PERF-10: target ≤ 2× the hello-world program), %d runs of %d interleaved rounds\n\n", runs, startRounds))
	doc.WriteString("| program | CPU, median run | wall, median run | × hello-world (CPU): min / median / max |\n| --- | ---: | ---: | ---: |\n")
	hello := buildHello(tb, dir)
	var starts [][]Start
	for range runs {
		s, err := Startup(cli, hello, dir, startRounds)
		if err != nil {
			tb.Fatal(err)
		}
		starts = append(starts, s)
	}
	for i := range starts[0] {
		var cpu, wall, ratio []float64
		for _, s := range starts {
			cpu, wall = append(cpu, s[i].CPU.Seconds()*1e3), append(wall, s[i].Wall.Seconds()*1e3)
			ratio = append(ratio, float64(s[i].CPU)/float64(s[0].CPU))
		}
		_, c, _ := Spread(cpu)
		_, w, _ := Spread(wall)
		lo, med, hi := Spread(ratio)
		fmt.Fprintf(&doc, "| %s | %.2f ms | %.2f ms | %.2f / **%.2f** / %.2f |\n", starts[0][i].Name, c, w, lo, med, hi)
	}
	doc.WriteString("\n")
	logs := tableLogs(tb, dir)
	for _, kind := range []string{"pairs", "mix"} {
		var all [][]Stage
		for range runs {
			st, err := Stages(cli, logs[kind], 3)
			if err != nil {
				tb.Fatal(err)
			}
			all = append(all, st)
		}
		fi, _ := os.Stat(logs[kind])
		fmt.Fprintf(&doc, "### `loom-conform fold` of the `%s` log (100 000 envelopes, %.1f MB), by stage (I-PERF-11: end to end ≥ 2× the bare decode end to end)\n\n"+
			"%d runs of 3 interleaved rounds; each stage in CPU ms (median run) and as a fraction of the bare decode end to end (min / median / max).\n\n"+
			"| stage | CPU ms | ÷ bare decode |\n| --- | ---: | ---: |\n", kind, float64(fi.Size())/1e6, runs)
		for i := range all[0] {
			var ms, frac []float64
			for _, st := range all {
				ms = append(ms, st[i].CPU.Seconds()*1e3)
				frac = append(frac, float64(st[i].CPU)/float64(st[0].CPU))
			}
			_, m, _ := Spread(ms)
			lo, med, hi := Spread(frac)
			fmt.Fprintf(&doc, "| %s | %.1f | %.2f / %.2f / %.2f |\n", all[0][i].Name, m, lo, med, hi)
		}
		var speed []float64
		for _, st := range all {
			speed = append(speed, float64(st[0].CPU)/float64(st[len(st)-1].CPU))
		}
		lo, med, hi := Spread(speed)
		fmt.Fprintf(&doc, "\nEnd to end: **%.2f×** the bare decode's speed, both end to end (min %.2f, max %.2f over the %d runs).\n\n", med, lo, hi, runs)
	}
	doc.WriteString(cliEnd)
	return doc.String()
}

const cliBegin, cliEnd = "<!-- cli:begin (make perf-cli) -->", "<!-- cli:end -->"

// TestWriteCLISection measures the command line's figures and writes their section of the file
// LOOM_PERF_DOC names (make perf-cli), leaving the rest of it as it is: the whole document takes
// an hour to measure, this section a few minutes.
func TestWriteCLISection(t *testing.T) {
	path := os.Getenv("LOOM_PERF_DOC")
	if path == "" || os.Getenv("LOOM_PERF_CLI") == "" {
		t.Skip("set LOOM_PERF_DOC=../docs/performance.md LOOM_PERF_CLI=1 (make perf-cli) to measure the command line and write its section")
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	section := cliSection(t, dir, buildCLI(t, dir))
	if err := os.WriteFile(path, []byte(withCLISection(string(old), section)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withCLISection replaces the cli section of doc, or puts it before the first section that
// follows the document's preamble when there is none yet.
func withCLISection(doc, section string) string {
	if i, j := strings.Index(doc, cliBegin), strings.Index(doc, cliEnd); i >= 0 && j > i {
		return doc[:i] + section + doc[j+len(cliEnd):]
	}
	if i := strings.Index(doc, "\n## "); i >= 0 {
		return doc[:i+1] + section + "\n" + doc[i+1:]
	}
	return doc + "\n" + section + "\n"
}

func TestWithCLISection(t *testing.T) {
	doc := "# P\n\nintro\n\n## A\n\ntext\n"
	one := withCLISection(doc, cliBegin+"\nX\n"+cliEnd)
	if want := "# P\n\nintro\n\n" + cliBegin + "\nX\n" + cliEnd + "\n## A\n\ntext\n"; one != want {
		t.Fatalf("withCLISection(new) = %q, want %q", one, want)
	}
	if two := withCLISection(one, cliBegin+"\nY\n"+cliEnd); two != strings.Replace(one, "X", "Y", 1) {
		t.Fatalf("withCLISection(again) = %q, want the section replaced", two)
	}
}
