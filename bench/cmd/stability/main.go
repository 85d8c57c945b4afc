// Command stability certifies each built-in store and the reference kernel several times — under
// whatever load the caller arranges (make stability runs it under scripts/load.sh 16) — and reports
// whether any verdict flipped, and which checks were slowest (DESIGN §7.1: a verdict never depends
// on machine speed).
//
//	go run ./cmd/stability -bin ../bin/loom-conform -runs 20 -dsn "$LOOM_CONFORM_POSTGRES_DSN" \
//	    -kernels reference,slow -out ../test-results/stability.md -doc ../docs/performance.md
//
// The kernels are `certify kernel --exec 'loom-conform serve-kernel'` (reference) and the same kernel
// answering every request -kernel-delay later (slow: about a Python http.server's round trip). A
// flip is a run whose verdict is not the one the reference implementations earn (certified), or a
// check whose verdict differs between runs of one target. The Markdown table goes to -out and
// replaces the section between the stability markers of -doc. Exit 1 when anything flipped.
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// report is what this command reads of a certify --report file (docs/bridge.md, "Reports").
type report struct {
	Verdict string `json:"verdict"`
	Checks  []struct {
		ID         string  `json:"id"`
		Verdict    string  `json:"verdict"`
		DurationMs float64 `json:"durationMs"`
	} `json:"checks"`
}

// certified is the verdict every reference store earns.
const certified = "certified"

// The markers around the section this command owns in docs/performance.md.
const (
	begin = "<!-- stability:begin (make stability) -->"
	end   = "<!-- stability:end -->"
)

func main() {
	bin := flag.String("bin", "bin/loom-conform", "the loom-conform binary to run")
	runs := flag.Int("runs", 20, "runs per store")
	stores := flag.String("stores", "memory,sqlite,postgres", "built-in stores to certify (postgres needs -dsn; \"\" for none)")
	kernels := flag.String("kernels", "reference,slow", "kernels to certify: reference (serve-kernel), slow (serve-kernel --delay -kernel-delay); \"\" for none")
	kernelDelay := flag.Duration("kernel-delay", 400*time.Microsecond, "the slow kernel's added delay per request")
	dsn := flag.String("dsn", os.Getenv("LOOM_CONFORM_POSTGRES_DSN"), "PostgreSQL DSN for the postgres store")
	out := flag.String("out", "", "write the Markdown report here")
	doc := flag.String("doc", "", "replace the stability section of this Markdown file")
	load := flag.String("load", os.Getenv("LOOM_STABILITY_LOAD"), "how the load was made, for the report (e.g. scripts/load.sh 16)")
	flag.Parse()
	if *runs < 1 {
		fail(2, "-runs must be at least 1")
	}
	tmp, err := os.MkdirTemp("", "loom-stability-")
	if err != nil {
		fail(2, err.Error())
	}
	defer os.RemoveAll(tmp)
	var sections []storeResult
	flipped := false
	var targets []target
	for _, store := range list(*stores) {
		if store == "postgres" && *dsn == "" {
			fail(2, "postgres needs -dsn (or LOOM_CONFORM_POSTGRES_DSN)")
		}
		args := []string{"certify", "all", "--builtin", store}
		if store == "postgres" {
			args = append(args, "--dsn", *dsn)
		}
		targets = append(targets, target{name: store, args: args})
	}
	for _, k := range list(*kernels) {
		serve := *bin + " serve-kernel"
		name := "kernel"
		switch k {
		case "reference":
		case "slow":
			serve += " --delay " + kernelDelay.String()
			name = "kernel +" + kernelDelay.String()
		default:
			fail(2, fmt.Sprintf("-kernels: %q is not reference or slow", k))
		}
		targets = append(targets, target{name: name, args: []string{"certify", "kernel", "--exec", serve}})
	}
	for n, tg := range targets {
		res := storeResult{store: tg.name}
		for i := 1; i <= *runs; i++ {
			rep, err := certifyOnce(*bin, tg.args, int64(i), filepath.Join(tmp, fmt.Sprintf("%d-%d.json", n, i)))
			if err != nil {
				fail(1, fmt.Sprintf("%s run %d: %v", tg.name, i, err))
			}
			res.add(rep)
			fmt.Fprintf(os.Stderr, "stability: %s run %d/%d: %s, %.1fs in checks, load %s\n", tg.name, i, *runs, rep.Verdict, res.checkSecs[len(res.checkSecs)-1], loadAvg())
		}
		flipped = flipped || res.flips() > 0
		sections = append(sections, res)
	}
	md := render(sections, *runs, *load)
	fmt.Print(md)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
			fail(1, err.Error())
		}
	}
	if *doc != "" {
		if err := replaceSection(*doc, md); err != nil {
			fail(1, err.Error())
		}
	}
	if flipped {
		fail(1, "verdicts flipped (see the report)")
	}
}

// target is one thing certified: its name in the report and the certify arguments.
type target struct {
	name string
	args []string
}

// list splits a comma-separated flag ("" is none).
func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// certifyOnce runs certify with args and seed and reads its JSON report. Any exit code is a
// verdict; only a report that cannot be read is an error.
func certifyOnce(bin string, args []string, seed int64, file string) (*report, error) {
	args = append(append([]string(nil), args...), "--seed", fmt.Sprint(seed), "--report", file)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = nil, nil
	_ = cmd.Run()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("no report (%v)", err)
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("report %s: %v", file, err)
	}
	return &rep, nil
}

type storeResult struct {
	store     string
	verdicts  map[string]int
	checks    map[string]map[string]int // check -> verdict -> runs
	durations map[string][]float64      // check -> ms per run
	checkSecs []float64                 // seconds spent in checks, per run
}

func (s *storeResult) add(r *report) {
	if s.verdicts == nil {
		s.verdicts, s.checks, s.durations = map[string]int{}, map[string]map[string]int{}, map[string][]float64{}
	}
	s.verdicts[r.Verdict]++
	total := 0.0
	for _, c := range r.Checks {
		if s.checks[c.ID] == nil {
			s.checks[c.ID] = map[string]int{}
		}
		s.checks[c.ID][c.Verdict]++
		s.durations[c.ID] = append(s.durations[c.ID], c.DurationMs)
		total += c.DurationMs
	}
	s.checkSecs = append(s.checkSecs, total/1000)
}

// flips counts the runs that were not certified plus the checks whose verdict differed between
// runs.
func (s *storeResult) flips() int {
	n := 0
	for v, k := range s.verdicts {
		if v != certified {
			n += k
		}
	}
	for _, byVerdict := range s.checks {
		if len(byVerdict) > 1 {
			n++
		}
	}
	return n
}

func (s *storeResult) flippedChecks() []string {
	var out []string
	for id, byVerdict := range s.checks {
		if len(byVerdict) > 1 {
			var parts []string
			for v, k := range byVerdict {
				parts = append(parts, fmt.Sprintf("%s ×%d", v, k))
			}
			sort.Strings(parts)
			out = append(out, fmt.Sprintf("`%s` (%s)", id, strings.Join(parts, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

func render(rs []storeResult, runs int, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Verdict stability (`make stability`)\n\n")
	if load == "" {
		load = "no load generator named"
	}
	fmt.Fprintf(&b, "`certify all --builtin STORE` per store and `certify kernel --exec 'loom-conform serve-kernel'` per kernel "+
		"(`kernel +D`: serve-kernel --delay D, every request answered D later), %d runs each (seeds 1..%d), under %s; generated %s on %s.\n"+
		"A flip is a run not certified, or a check whose verdict differed between runs; the goal is 0.\n\n",
		runs, runs, load, time.Now().UTC().Format("2006-01-02 15:04 UTC"), host())
	b.WriteString("| target | runs | verdicts | flips | time in checks per run (min / median / max) |\n| --- | ---: | --- | ---: | --- |\n")
	for _, r := range rs {
		var vs []string
		for v, k := range r.verdicts {
			vs = append(vs, fmt.Sprintf("%s ×%d", v, k))
		}
		sort.Strings(vs)
		lo, med, hi := spread(r.checkSecs)
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %.1f / %.1f / %.1f s |\n", r.store, len(r.checkSecs), strings.Join(vs, ", "), r.flips(), lo, med, hi)
	}
	for _, r := range rs {
		if f := r.flippedChecks(); len(f) > 0 {
			fmt.Fprintf(&b, "\nChecks of %s whose verdict flipped: %s.\n", r.store, strings.Join(f, "; "))
		}
	}
	b.WriteString("\nSlowest checks (the five with the highest maximum over the runs, per target):\n\n| target | check | median | max |\n| --- | --- | ---: | ---: |\n")
	for _, r := range rs {
		type row struct {
			id       string
			med, max float64
		}
		var rows []row
		for id, ds := range r.durations {
			_, med, hi := spread(ds)
			rows = append(rows, row{id, med, hi})
		}
		slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.max, a.max), strings.Compare(a.id, b.id)) })
		for _, x := range rows[:min(5, len(rows))] {
			fmt.Fprintf(&b, "| %s | `%s` | %.2f s | %.2f s |\n", r.store, x.id, x.med/1000, x.max/1000)
		}
	}
	return b.String()
}

func spread(xs []float64) (lo, med, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[0], s[len(s)/2], s[len(s)-1]
}

// replaceSection puts md between the stability markers of the file at path (appending the
// markers when the file has none).
func replaceSection(path, md string) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(old)
	block := begin + "\n\n" + md + "\n" + end
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(end):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func host() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	n := strings.Count(string(b), "processor\t:")
	if err != nil || n == 0 {
		return "this machine"
	}
	return fmt.Sprintf("%d logical CPUs", n)
}

func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "stability:", msg)
	os.Exit(code)
}
