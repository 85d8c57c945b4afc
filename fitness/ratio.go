package fitness

import (
	"fmt"
	"math"
)

// A ratio gate compares two workloads measured in the same process: A (the baseline) and B (the
// thing under test), with a control A' that is A again under B's schedule. Each round times all
// three interleaved (see Measure); the figure is the Hodges–Lehmann estimate of the per-round
// B/A with its 95 % confidence interval, and A'/A shows what bias the measurement itself has.
// A verdict is given only when the whole interval, widened by that bias, lies on one side of the
// limit; otherwise it is unknown and the gate measures more rounds.

// Samples are the per-round ratios of one measurement.
type Samples struct {
	AB []float64 `json:"ab"` // B/A per round
	AA []float64 `json:"aa"` // A'/A per round: what the same work costs twice
}

// Judgement is the verdict on one measurement.
type Judgement struct {
	Verdict Verdict `json:"verdict"`
	// Figure is the value judged: the estimate of B/A for a ratio, the median for a bench metric.
	Figure float64 `json:"figure"`
	// Low and High bound what the figure may be given the noise: for a ratio, the 95 %
	// interval of B/A widened on both sides by the A/A bias (how far the A/A interval lies off
	// 1); for a bench metric, the median ± half the interquartile range.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// AA is the estimate of A'/A (ratios only): 1 when the measurement is unbiased.
	AA     float64 `json:"aa,omitempty"`
	Reason string  `json:"reason"`
}

// MaxNoise is the noise above which nothing is judged at all: the machine is too busy. For a
// ratio it bounds the half-width of the A/A interval (in log terms), for a bench metric half the
// interquartile range.
const MaxNoise = 0.10

// JudgeMax judges "B/A ≤ max": pass when the whole widened interval is at or below max, fail
// when it is wholly above, unknown when it straddles max or the A/A control is too noisy, so
// noise alone does not produce a verdict.
func JudgeMax(s Samples, max float64) Judgement {
	return judge(s, max, true)
}

// JudgeMin judges "B/A ≥ min" the same way.
func JudgeMin(s Samples, min float64) Judgement {
	return judge(s, min, false)
}

// judge works on logarithms, where a ratio and its inverse are equally far from 1.
func judge(s Samples, limit float64, upper bool) Judgement {
	if len(s.AB) == 0 || len(s.AA) != len(s.AB) {
		return Judgement{Verdict: Unknown, Reason: fmt.Sprintf("%d A/B and %d A/A rounds: nothing to judge", len(s.AB), len(s.AA))}
	}
	ab, aa := hodgesLehmann(logs(s.AB)), hodgesLehmann(logs(s.AA))
	// The control's bias counts as far as its own interval lies off 1 — what the A/A rounds show
	// beyond their noise. (Widening by |A'/A − 1| itself charged every run its A/A noise twice and
	// left a 10 % slower kernel undecided after 210 rounds.)
	bias := max(0, aa.Low, -aa.High)
	j := decide(math.Exp(ab.Est), math.Exp(ab.Low-bias), math.Exp(ab.High+bias), limit, upper)
	j.AA = math.Exp(aa.Est)
	if noise := (aa.High - aa.Low) / 2; noise > MaxNoise {
		j.Verdict = Unknown
		j.Reason = fmt.Sprintf("A/A noise %.3f exceeds %.2f: the machine is too noisy to judge", noise, MaxNoise)
	}
	j.Reason += fmt.Sprintf(" (%d rounds)", len(s.AB))
	return j
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// decide judges the interval [low, high] around figure against limit: pass when it lies wholly on
// the allowed side, fail when wholly on the other, unknown when it straddles the limit.
func decide(figure, low, high, limit float64, upper bool) Judgement {
	j := Judgement{Verdict: Unknown, Figure: figure, Low: low, High: high}
	op, inside, outside := "≤", high <= limit, low > limit
	if !upper {
		op, inside, outside = "≥", low >= limit, high < limit
	}
	span := fmt.Sprintf("%.3f in [%.3f, %.3f]", figure, low, high)
	switch {
	case inside:
		j.Verdict, j.Reason = Pass, fmt.Sprintf("%s %s %.2f", span, op, limit)
	case outside:
		j.Verdict, j.Reason = Fail, fmt.Sprintf("%s, want %s %.2f", span, op, limit)
	default:
		j.Reason = fmt.Sprintf("%s straddles %s %.2f", span, op, limit)
	}
	return j
}
