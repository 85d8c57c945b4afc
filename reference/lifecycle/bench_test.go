package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// longLog is an execution of n envelopes: a start, then steps started and completed.
func longLog(id string, n int) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		e := spi.Envelope{ID: fmt.Sprintf("%s-%d", id, i), WorkflowID: "wf", ExecutionID: id, Sequence: int64(i), Timestamp: 1_767_225_600_000 + int64(i)}
		switch {
		case i == 0:
			e.EventType, e.Payload = "EXECUTION_STARTED", json.RawMessage(`{"flowId":"wf","input":{"n":1}}`)
		case i%2 == 1:
			e.EventType, e.Payload = "STEP_STARTED", json.RawMessage(fmt.Sprintf(`{"stepId":"s%d","input":{"i":%d}}`, i/2, i))
		default:
			e.EventType, e.Payload = "STEP_COMPLETED", json.RawMessage(fmt.Sprintf(`{"stepId":"s%d","output":{"v":%d}}`, (i-1)/2, i))
		}
		out[i] = e
	}
	return out
}

// Compacting a 100 000-envelope execution over the memory stores (fold, snapshot, archive,
// deleteThrough), reported in envelopes per second.
func BenchmarkCompact100k(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	log := longLog("big", n)
	if _, err := fold.Fold(fold.Current(), nil, log); err != nil {
		b.Fatalf("the benchmark log does not fold: %v", err)
	}
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		es, ss, as := memory.NewEventStore(), memory.NewSnapshotStore(), memory.NewArchiveStore()
		if err := es.Append(ctx, "big", log, spi.AppendOptions{}); err != nil {
			b.Fatal(err)
		}
		lc, _ := lifecycle.New(lifecycle.Config{Store: es, Snapshots: ss, Archive: as})
		b.StartTimer()
		t0 := time.Now()
		if _, err := lc.Compact(ctx, "big", n-1); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(n)*float64(b.N)/total.Seconds(), "envelopes/s")
}
