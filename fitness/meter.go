package fitness

import (
	"runtime"
	"runtime/debug"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cputime"
)

// Pair is a ratio workload: A is the baseline, B the thing under test. Each call does one unit of
// work; Measure calls them in batches large enough to time.
type Pair struct {
	A, B func() error
	// Reset, when set, drops what earlier calls accumulated (executions a store keeps), so that
	// every round measures the same work on a heap of the same size; it runs between rounds,
	// outside the timing.
	Reset func() error
	// Close, when set, releases what the pair holds (a mounted carrier) once measured.
	Close func() error
	// WithGC keeps the collector on inside timed batches, so a side's allocations are charged to
	// it: for pairs whose sides allocate very differently (decoding every envelope vs folding
	// them), collection is part of what the ratio compares (I-PERF-4).
	WithGC bool
	// MinBatch, when longer than the run's, is the CPU time one timed batch aims at: a pair
	// WithGC whose unit of work is short wants batches that hold several collections, or the
	// rounds a collection lands in make the A/A noise alone exceed what can be judged.
	MinBatch time.Duration
}

// Measure runs rounds interleaved rounds of p and returns the per-round ratios. A batch is
// calibrated so that one A batch takes about minBatch of CPU time.
func Measure(p Pair, rounds int, minBatch time.Duration) (Samples, error) {
	var s Samples
	m, err := startMeter(p, minBatch)
	if err != nil {
		return s, err
	}
	defer m.stop()
	return s, m.run(rounds, &s)
}

// measureUntil measures rounds rounds of p and judges them; while the verdict is unknown it adds
// rounds more, up to maxRounds in all. Extending one measurement keeps every round already paid
// for, where starting again would throw them away.
func measureUntil(p Pair, rounds, maxRounds int, minBatch time.Duration, judge func(Samples) Judgement) (Samples, Judgement, error) {
	var s Samples
	m, err := startMeter(p, minBatch)
	if err != nil {
		return s, Judgement{}, err
	}
	defer m.stop()
	for {
		if err := m.run(min(rounds, maxRounds-len(s.AB)), &s); err != nil {
			return s, Judgement{}, err
		}
		j := judge(s)
		if j.Verdict != Unknown || len(s.AB) >= maxRounds {
			return s, j, nil
		}
	}
}

// meter times a pair round after round.
type meter struct {
	p     Pair
	n     int // calls per batch
	round int
	undo  func()
}

// startMeter prepares the process for timing p and calibrates the batch size.
//
// GOMAXPROCS is 1 while measuring: a kernel execution hands work between goroutines, and with an
// idle second P the scheduler spins threads looking for work — CPU time that depends on how busy
// the rest of the machine is, not on A or B (with a growing heap it made an execution look several
// times dearer on a loaded runner than inside a round). With one P a hand-off is a plain goroutine
// switch, and process CPU time still counts every goroutine either side starts. The collector is
// off inside a round (on for a pair WithGC) and runs between rounds, outside the timing, after the
// pair's Reset: every round starts on the same small heap.
func startMeter(p Pair, minBatch time.Duration) (*meter, error) {
	procs := runtime.GOMAXPROCS(1)
	gc := debug.SetGCPercent(-1)
	if p.WithGC {
		debug.SetGCPercent(gc)
	}
	m := &meter{p: p, undo: func() { debug.SetGCPercent(gc); runtime.GOMAXPROCS(procs) }}
	if err := m.calibrate(max(minBatch, p.MinBatch)); err != nil {
		m.stop()
		return nil, err
	}
	return m, nil
}

func (m *meter) stop() { m.undo() }

// calibrate sizes a batch: it doubles n until an A batch takes minBatch (which also warms both
// sides up: first-use costs and the heap's first growth fall outside every round), then scales n
// by the median of three batches timed as a round times them.
func (m *meter) calibrate(minBatch time.Duration) error {
	m.n = 1
	for {
		if err := m.fresh(); err != nil {
			return err
		}
		d, err := timeBatch(m.p.A, m.n)
		if err != nil {
			return err
		}
		if _, err := timeBatch(m.p.B, m.n); err != nil {
			return err
		}
		if d >= minBatch || m.n >= 1<<20 {
			break
		}
		m.n *= 2
	}
	var ds []float64
	for range 3 {
		if err := m.fresh(); err != nil {
			return err
		}
		d, err := timeBatch(m.p.A, m.n)
		if err != nil {
			return err
		}
		ds = append(ds, float64(d))
	}
	if med := median(ds); med > 0 {
		m.n = max(1, int(float64(m.n)*float64(minBatch)/med+0.5))
	}
	return nil
}

// fresh starts a round: it resets the pair, collects, and — after a reset — calls each side once
// untimed, so that a round starts on a clean heap with nothing first-use left in it.
func (m *meter) fresh() error {
	if m.p.Reset != nil {
		if err := m.p.Reset(); err != nil {
			return err
		}
	}
	runtime.GC()
	if m.p.Reset == nil {
		return nil
	}
	if err := m.p.A(); err != nil {
		return err
	}
	return m.p.B()
}

// palindromes are the round orders: each side (A, B, and the control A') runs twice, in mirrored
// positions, so a linear drift over the round costs all three the same. Rounds cycle through the
// six assignments of sides to positions, so no side keeps the first or the middle slot.
var palindromes = [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}

// run adds k rounds to s.
func (m *meter) run(k int, s *Samples) error {
	fns := [3]func() error{m.p.A, m.p.B, m.p.A}
	for range k {
		if err := m.fresh(); err != nil {
			return err
		}
		var t [3]time.Duration
		order := palindromes[m.round%len(palindromes)]
		m.round++
		for pos := range 6 {
			side := order[min(pos, 5-pos)]
			d, err := timeBatch(fns[side], m.n)
			if err != nil {
				return err
			}
			t[side] += d
		}
		// B is set against A and A' together: they are the same work, rotated alike, so the
		// baseline has twice the samples B has. A'/A is the control.
		a, b, a2 := float64(max(t[0], 1)), float64(max(t[1], 1)), float64(max(t[2], 1)) // a clock that did not move must not divide by zero
		s.AB = append(s.AB, 2*b/(a+a2))
		s.AA = append(s.AA, a2/a)
	}
	return nil
}

// timeBatch runs f n times and returns the process CPU time (user + system) it took, with that of
// the child processes it ran and waited for (a command line run as a child): time the
// machine gives to other processes does not count, which is what makes a busy CI runner usable.
func timeBatch(f func() error, n int) (time.Duration, error) {
	start := cputime.Process() + cputime.Children()
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	return cputime.Process() + cputime.Children() - start, nil
}
