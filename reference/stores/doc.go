// Package stores holds the reference implementations of the storage seams (spec §7): memory,
// sqlite (the embedded default) and postgres, plus the sharded decorator. Each passes every
// conformance kit in package kits.
//
//	es := memory.NewEventStore()
//	kits.EventStore(t, func(t testing.TB) spi.EventStore { return memory.NewEventStore() })
package stores
