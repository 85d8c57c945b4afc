package fitness

import (
	"os/exec"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// around returns n ratios spread evenly over centre × (1 ± spread).
func around(centre, spread float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = centre * (1 + spread*(2*float64(i%7)/6-1))
	}
	return out
}

// Reference: spec §10 (relative-ratio bench gate); a ratio is judged only when its whole 95 %
// interval, widened by the A/A bias of the same run, lies on one side of the limit, so noise
// alone does not decide a gate.
func TestJudgeMax(t *testing.T) {
	quiet := around(1, 0.02, 21)
	noisy := around(1, 0.5, 21)
	wild := around(1, 0.02, 21)
	wild[3], wild[11] = 3, 0.2 // two disturbed rounds
	for _, tc := range []struct {
		name string
		ab   []float64
		aa   []float64
		want Verdict
	}{
		{"clean kernel, quiet machine", around(1, 0.02, 21), quiet, Pass},
		{"ten percent slower, quiet machine", around(1.10, 0.02, 21), quiet, Fail},
		{"at the limit", around(1.05, 0.02, 21), quiet, Unknown},
		{"two wild rounds do not move it", wild, quiet, Pass},
		{"noisy machine, clean kernel", around(1, 0.02, 21), noisy, Unknown},
		{"noisy machine, slow kernel", around(1.5, 0.02, 21), noisy, Unknown},
		{"A/A biased: both sides slower in turn", around(1, 0.02, 21), around(1.08, 0.02, 21), Unknown},
		{"no rounds", nil, nil, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := JudgeMax(Samples{AB: tc.ab, AA: tc.aa}, 1.05)
			if j.Verdict != tc.want {
				t.Errorf("g2/ratio [S10.g2.behavioural-and-ratio]: JudgeMax(%s) = %s (%s), want %s", tc.name, j.Verdict, j.Reason, tc.want)
			}
		})
	}
}

func TestJudgeMin(t *testing.T) {
	quiet := around(1, 0.02, 21)
	if j := JudgeMin(Samples{AB: around(0.9, 0.02, 21), AA: quiet}, 0.7); j.Verdict != Pass {
		t.Errorf("JudgeMin(0.9 ≥ 0.7) = %s (%s), want pass", j.Verdict, j.Reason)
	}
	if j := JudgeMin(Samples{AB: around(0.5, 0.02, 21), AA: quiet}, 0.7); j.Verdict != Fail {
		t.Errorf("JudgeMin(0.5 ≥ 0.7) = %s (%s), want fail", j.Verdict, j.Reason)
	}
	if j := judgeSpread([]float64{0.71, 0.55, 0.9, 0.65, 0.8}, 0.7, false); j.Verdict != Unknown {
		t.Errorf("judgeSpread(spread over the limit) = %s (%s), want unknown", j.Verdict, j.Reason)
	}
	if j := judgeSpread([]float64{0.95, 0.94, 0.96, 0.95, 0.97}, 0.7, false); j.Verdict != Pass {
		t.Errorf("judgeSpread(0.95 ≥ 0.7) = %s (%s), want pass", j.Verdict, j.Reason)
	}
}

// The interval of a Hodges–Lehmann estimate covers the centre and narrows as rounds are added.
func TestHodgesLehmann(t *testing.T) {
	short, long := hodgesLehmann(logs(around(1.1, 0.05, 21))), hodgesLehmann(logs(around(1.1, 0.05, 84)))
	for _, iv := range []Interval{short, long} {
		if !(iv.Low < iv.Est && iv.Est < iv.High) || iv.Low > 0.0953 || iv.High < 0.0953 {
			t.Errorf("hodgesLehmann(1.1 ± 5 %%) = %+v, want an interval around ln 1.1", iv)
		}
	}
	if long.High-long.Low >= short.High-short.Low {
		t.Errorf("hodgesLehmann: 84 rounds give width %.4f, 21 give %.4f, want narrower", long.High-long.Low, short.High-short.Low)
	}
}

func TestMeasureInterleaves(t *testing.T) {
	var order []byte
	p := Pair{
		A:     func() error { order = append(order, 'a'); return nil },
		B:     func() error { order = append(order, 'b'); return nil },
		Reset: func() error { order = append(order, '|'); return nil },
	}
	s, err := Measure(p, 15, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.AB) != 15 || len(s.AA) != 15 {
		t.Fatalf("Measure(15 rounds) = %d A/B, %d A/A ratios, want 15 each", len(s.AB), len(s.AA))
	}
	// Four calibration segments, then each round: a reset, one untimed call of each side, and
	// A, B and A' twice each in mirrored positions, rotated from round to round.
	rounds := strings.Split(string(order), "|")[5:]
	want := []string{"ab" + "abaaba", "ab" + "baaaab", "ab" + "aabbaa", "ab" + "aabbaa", "ab" + "abaaba", "ab" + "baaaab"}
	if len(rounds) != 15 {
		t.Fatalf("Measure(15 rounds) = %d reset rounds, want 15", len(rounds))
	}
	for i, w := range want {
		if rounds[i] != w {
			t.Errorf("Measure round %d = %q, want %q", i, rounds[i], w)
		}
	}
}

// An undecided measurement is extended round by round up to its bound, never started again.
func TestMeasureUntilExtends(t *testing.T) {
	p := Pair{A: func() error { return nil }, B: func() error { return nil }}
	var seen []int
	undecided := func(s Samples) Judgement { seen = append(seen, len(s.AB)); return Judgement{Verdict: Unknown} }
	s, j, err := measureUntil(p, 15, 40, 0, undecided)
	if err != nil || j.Verdict != Unknown || len(s.AB) != 40 || len(seen) != 3 || seen[0] != 15 || seen[1] != 30 {
		t.Errorf("measureUntil(never decided, 15 then up to 40) = %d rounds judged at %v, %s, %v; want 40 rounds judged at 15, 30, 40", len(s.AB), seen, j.Verdict, err)
	}
	seen = nil
	decided := func(s Samples) Judgement {
		seen = append(seen, len(s.AB))
		if len(s.AB) >= 30 {
			return Judgement{Verdict: Pass}
		}
		return Judgement{Verdict: Unknown}
	}
	if s, j, _ := measureUntil(p, 15, 40, 0, decided); j.Verdict != Pass || len(s.AB) != 30 {
		t.Errorf("measureUntil(decided at 30) = %s after %d rounds, want pass after 30", j.Verdict, len(s.AB))
	}
}

// TestMeasureWithGC: a pair marked WithGC is timed with the collector on (I-PERF-4), every
// other pair with it off (I-PERF-1).
func TestMeasureWithGC(t *testing.T) {
	for _, withGC := range []bool{false, true} {
		var off, on int
		probe := func() error {
			v := debug.SetGCPercent(-1)
			debug.SetGCPercent(v)
			if v < 0 {
				off++
			} else {
				on++
			}
			return nil
		}
		if _, err := Measure(Pair{A: probe, B: probe, WithGC: withGC}, 3, time.Microsecond); err != nil {
			t.Fatal(err)
		}
		if withGC && off > 0 || !withGC && on > 0 {
			t.Errorf("ratio-gc [I-PERF-4, I-PERF-1]: Measure(WithGC: %v) = %d batches with the collector on, %d off, want all %s", withGC, on, off, map[bool]string{true: "on", false: "off"}[withGC])
		}
	}
}

// Reference: I-PERF-10, I-PERF-11 — a command-line workload is charged the CPU time of the child
// processes it runs: a batch that runs a busy child costs at least what the child spent.
func TestTimeBatchCountsChildren(t *testing.T) {
	busy := func() error {
		cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
		return cmd.Run()
	}
	d, err := timeBatch(busy, 1)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	child := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	if d < child/2 {
		t.Errorf("fitness/ratio-children [I-PERF-10 I-PERF-11]: timeBatch(a busy child) = %v, want at least about the child's own %v", d, child)
	}
}
