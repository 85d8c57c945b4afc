package ingress

import (
	"fmt"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// benchLog is a long realistic log: steps with inputs and outputs, decisions, emits and answered
// parks.
func benchLog(n int) []spi.Envelope {
	evs := []ev{started}
	for i := 0; len(evs) < n; i++ {
		evs = append(evs,
			ev{"STEP_STARTED", fmt.Sprintf(`{"stepId":"s%d","attempt":1,"kind":"tool","input":{"q":"some text %d","k":[1,2,3]}}`, i, i), ""},
			ev{"STEP_COMPLETED", fmt.Sprintf(`{"stepId":"s%d","output":{"answer":"result %d","tokens":123}}`, i, i), ""},
			ev{"DECISION_RECORDED", fmt.Sprintf(`{"id":"d%d","choice":{"route":"fast"}}`, i), ""},
			ev{"progress", fmt.Sprintf(`{"p":%d}`, i), ""})
		if i%10 == 0 {
			evs = append(evs, ev{"EXECUTION_SUSPENDED", fmt.Sprintf(`{"on":"g%d"}`, i), ""}, ev{"EXECUTION_RESUMED", `{"ok":true}`, ""})
		}
	}
	return build(append(evs, parkApprove)...)
}

// BenchmarkFactsVsFold measures the cost FactsFrom adds to a resume, as the ratio of its time to
// the fold's over the same 10 000-envelope log, interleaved in one run.
func BenchmarkFactsVsFold(b *testing.B) {
	events := benchLog(10000)
	var tFold, tFacts time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := fold.Fold(fold.Current(), nil, events); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := FactsFrom(events); err != nil {
			b.Fatal(err)
		}
		tFold += t1.Sub(t0)
		tFacts += time.Since(t1)
	}
	b.ReportMetric(float64(tFacts)/float64(tFold), "facts/fold")
}

// BenchmarkEvaluate measures one gate decision over a folded 10 000-envelope log relative to the
// fold that precedes it.
func BenchmarkEvaluate(b *testing.B) {
	events := benchLog(10000)
	st, _ := fold.Fold(fold.Current(), nil, events)
	f, _ := FactsFrom(events)
	req := Request{EventType: "approve", Payload: raw(`{"ok":true}`)}
	var tFold, tEval time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := fold.Fold(fold.Current(), nil, events); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Evaluate(b.Context(), st, f, req, Options{}); err != nil {
			b.Fatal(err)
		}
		tFold += t1.Sub(t0)
		tEval += time.Since(t1)
	}
	b.ReportMetric(float64(tEval)/float64(tFold), "evaluate/fold")
}
