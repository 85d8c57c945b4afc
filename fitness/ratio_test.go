package fitness

import (
	"testing"
)

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Reference: spec §10 (relative-ratio bench gate); a ratio is judged only beyond the noise the
// same run's A/A rounds show, so noise alone never fails a gate.
func TestJudgeMax(t *testing.T) {
	quiet := []float64{0.98, 1.02, 0.99, 1.01, 1.0, 0.98, 1.02, 0.99, 1.01, 1.0, 0.98, 1.02, 0.99, 1.01, 1.0} // noise 0.01
	noisy := []float64{0.8, 1.2, 0.9, 1.1, 1.25, 0.75, 1.0, 1.3, 0.7, 1.0, 1.15, 0.85, 1.0, 1.0, 1.0}
	for _, tc := range []struct {
		name string
		ab   []float64
		aa   []float64
		want Verdict
	}{
		{"clean kernel, quiet machine", repeat(1.0, 15), quiet, Pass},
		{"ten percent slower, quiet machine", repeat(1.10, 15), quiet, Fail},
		{"at the limit", repeat(1.05, 15), quiet, Unknown},
		{"just inside, within noise", repeat(1.045, 15), quiet, Unknown},
		{"noisy machine, clean kernel", repeat(1.0, 15), noisy, Unknown},
		{"noisy machine, slow kernel", repeat(1.5, 15), noisy, Unknown},
		{"A/A drifts: both sides slower in turn", repeat(1.0, 15), repeat(1.08, 15), Unknown},
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
	quiet := repeat(1.0, 15)
	if j := JudgeMin(Samples{AB: repeat(0.9, 15), AA: quiet}, 0.7); j.Verdict != Pass {
		t.Errorf("JudgeMin(0.9 ≥ 0.7) = %s (%s), want pass", j.Verdict, j.Reason)
	}
	if j := JudgeMin(Samples{AB: repeat(0.5, 15), AA: quiet}, 0.7); j.Verdict != Fail {
		t.Errorf("JudgeMin(0.5 ≥ 0.7) = %s (%s), want fail", j.Verdict, j.Reason)
	}
	if j := judgeSpread([]float64{0.71, 0.55, 0.9, 0.65, 0.8}, 0.7, false); j.Verdict != Unknown {
		t.Errorf("judgeSpread(spread over the limit) = %s (%s), want unknown", j.Verdict, j.Reason)
	}
	if j := judgeSpread([]float64{0.95, 0.94, 0.96, 0.95, 0.97}, 0.7, false); j.Verdict != Pass {
		t.Errorf("judgeSpread(0.95 ≥ 0.7) = %s (%s), want pass", j.Verdict, j.Reason)
	}
}

func TestMeasureInterleaves(t *testing.T) {
	var order []byte
	p := Pair{A: func() error { order = append(order, 'a'); return nil }, B: func() error { order = append(order, 'b'); return nil }}
	s, err := Measure(p, 15, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.AB) != 15 || len(s.AA) != 15 {
		t.Fatalf("Measure(15 rounds) = %d A/B, %d A/A ratios, want 15 each", len(s.AB), len(s.AA))
	}
	// Calibration (a) and warm-up (b), then each round three batches in a rotated order.
	rounds := string(order[2:])
	if rounds[:3] != "aba" || rounds[3:6] != "baa" || rounds[6:9] != "aab" {
		t.Errorf("Measure order = %q…, want rounds rotated aba, baa, aab", rounds[:9])
	}
}
