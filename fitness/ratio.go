package fitness

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sort"
	"syscall"
	"time"
)

// A ratio gate compares two workloads measured in the same process: A (the baseline) and B (the
// thing under test). Each round runs A, B and A again in a rotated order, so that slow phases of a
// noisy machine fall on both sides alike; B/A is the figure and the second A/A is the machine's
// own noise, measured in the same run. The verdict is confident only when the figure is further
// from the threshold than the noise: otherwise it is unknown, and the gate measures again.

// Samples are the per-round ratios of one measurement.
type Samples struct {
	AB []float64 `json:"ab"` // B/A per round
	AA []float64 `json:"aa"` // A'/A per round: what the same work costs twice
}

// Judgement is the verdict on one measurement.
type Judgement struct {
	Verdict  Verdict `json:"verdict"`
	MedianAB float64 `json:"medianAB"`
	MedianAA float64 `json:"medianAA"`
	// Noise is the uncertainty the A/A rounds show: the larger of |median(A/A) − 1| and half the
	// interquartile range of A/A.
	Noise  float64 `json:"noise"`
	Reason string  `json:"reason"`
}

// MaxNoise is the noise above which no ratio is judged at all: the machine is too busy.
const MaxNoise = 0.10

// JudgeMax judges "median B/A ≤ max". It passes only when median+noise ≤ max, fails only when
// median−noise > max, and is unknown in between or when the noise exceeds MaxNoise, so noise alone
// can never produce a failure.
func JudgeMax(s Samples, max float64) Judgement {
	return judge(s, max, true)
}

// JudgeMin judges "median B/A ≥ min" the same way.
func JudgeMin(s Samples, min float64) Judgement {
	return judge(s, min, false)
}

func judge(s Samples, limit float64, upper bool) Judgement {
	if len(s.AB) == 0 || len(s.AA) != len(s.AB) {
		return Judgement{Verdict: Unknown, Reason: fmt.Sprintf("%d A/B and %d A/A rounds: nothing to judge", len(s.AB), len(s.AA))}
	}
	q1, q3 := quartiles(s.AA)
	mAA := median(s.AA)
	j := decide(median(s.AB), math.Max(math.Abs(mAA-1), (q3-q1)/2), limit, upper)
	j.MedianAA = mAA
	return j
}

// decide judges a median against limit given the noise of its measurement.
func decide(med, noise, limit float64, upper bool) Judgement {
	j := Judgement{Verdict: Unknown, MedianAB: med, Noise: noise}
	op, within := "≤", med <= limit
	if !upper {
		op, within = "≥", med >= limit
	}
	switch {
	case noise > MaxNoise:
		j.Reason = fmt.Sprintf("noise %.3f exceeds %.2f: the machine is too noisy to judge", noise, MaxNoise)
	case math.Abs(med-limit) <= noise:
		j.Reason = fmt.Sprintf("median %.3f is within the noise %.3f of %s %.2f", med, noise, op, limit)
	case within:
		j.Verdict, j.Reason = Pass, fmt.Sprintf("median %.3f %s %.2f (noise %.3f)", med, op, limit, noise)
	default:
		j.Verdict, j.Reason = Fail, fmt.Sprintf("median %.3f, want %s %.2f (noise %.3f)", med, op, limit, noise)
	}
	return j
}

// Pair is a ratio workload: A is the baseline, B the thing under test. Each call does one unit of
// work; Measure calls them in batches large enough to time.
type Pair struct {
	A, B func() error
	// Close, when set, releases what the pair holds (a mounted carrier) once measured.
	Close func() error
}

// Measure runs rounds interleaved rounds of p and returns the per-round ratios. A batch is
// calibrated once so that one A batch takes at least minBatch of CPU time.
func Measure(p Pair, rounds int, minBatch time.Duration) (Samples, error) {
	// No collection runs inside a timed batch: timeBatch collects before each one, so neither
	// side pays for the other's garbage and a cycle's background work never lands at random.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	n, err := calibrate(p.A, minBatch)
	if err != nil {
		return Samples{}, err
	}
	// Warm both sides once so first-use costs (allocation of pools, lazy tables) fall outside.
	if _, err := timeBatch(p.B, n); err != nil {
		return Samples{}, err
	}
	var s Samples
	for r := range rounds {
		var a1, b, a2 time.Duration
		// Rotate which side runs first so drift over a round falls on each side in turn.
		steps := []*time.Duration{&a1, &b, &a2}
		fns := []func() error{p.A, p.B, p.A}
		for k := range 3 {
			i := (k + r) % 3
			d, err := timeBatch(fns[i], n)
			if err != nil {
				return Samples{}, err
			}
			*steps[i] = d
		}
		s.AB = append(s.AB, float64(b)/float64(a1))
		s.AA = append(s.AA, float64(a2)/float64(a1))
	}
	return s, nil
}

func calibrate(f func() error, min time.Duration) (int, error) {
	n := 1
	for {
		d, err := timeBatch(f, n)
		if err != nil {
			return 0, err
		}
		if d >= min || n >= 1<<20 {
			return n, nil
		}
		n *= 2
	}
}

// timeBatch runs f n times and returns the process CPU time (user + system) it took: time the
// machine gives to other processes does not count, which is what makes a busy CI runner usable.
// A collection first, outside the timing, so one side's garbage is not collected on the other's.
func timeBatch(f func() error, n int) (time.Duration, error) {
	runtime.GC()
	start := cpuTime()
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	return cpuTime() - start, nil
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// quartiles returns the first and third quartiles (medians of the lower and upper halves).
func quartiles(xs []float64) (float64, float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := len(s) / 2
	if h == 0 {
		return s[0], s[0]
	}
	return median(s[:h]), median(s[len(s)-h:])
}
