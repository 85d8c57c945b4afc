package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func envs(x string, from int64, n int) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		s := from + int64(i)
		out[i] = spi.Envelope{ID: fmt.Sprintf("%s-%d", x, s), WorkflowID: "wf", ExecutionID: x, EventType: "STEP_COMPLETED",
			Sequence: s, Timestamp: 1_700_000_000_000 + s, Payload: []byte(`{"stepId":"s1","output":{"v":42}}`)}
	}
	return out
}

func benchAppend(b *testing.B, size int) {
	ctx := context.Background()
	s := memory.NewEventStore()
	batches := make([][]spi.Envelope, b.N)
	for i := range batches {
		batches[i] = envs("bench", int64(i*size), size)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Append(ctx, "bench", batches[i], spi.AppendOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size), "events/op")
}

func BenchmarkAppendSingle(b *testing.B)   { benchAppend(b, 1) }
func BenchmarkAppendBatch100(b *testing.B) { benchAppend(b, 100) }

func BenchmarkRead100(b *testing.B) {
	ctx := context.Background()
	s := memory.NewEventStore()
	if err := s.Append(ctx, "r", envs("r", 0, 100), spi.AppendOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, err := s.Read(ctx, "r"); err != nil || len(got) != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventStoreKit is the wall time of the whole EventStore kit on memory (target 5 s).
func BenchmarkEventStoreKit(b *testing.B) {
	factory := func(context.Context) (spi.EventStore, func(), error) { return memory.NewEventStore(), nil, nil }
	for i := 0; i < b.N; i++ {
		start := time.Now()
		results, err := kits.Run(context.Background(), kits.EventStoreKit(), factory, kits.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := kits.Errors(results); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "kit-s")
	}
}
