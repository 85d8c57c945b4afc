package kits_test

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// Run is the report driver: one Result per check, for a CLI or a dashboard.
func ExampleRun() {
	factory := func(context.Context) (spi.EventStore, func(), error) { return memory.NewEventStore(), nil, nil }
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factory,
		kits.Options{Run: `^eventstore/(append-conflict|store-now|fence-zombie)$`, Seed: 1})
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Println(r.CheckID, r.Verdict)
	}
	fmt.Println("certified:", kits.Certified(results))
	// Output:
	// eventstore/append-conflict pass
	// eventstore/fence-zombie pass
	// eventstore/store-now skip
	// certified: true
}
