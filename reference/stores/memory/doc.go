// Package memory is the in-memory reference store: EventStore, SnapshotStore, ArchiveStore and
// BranchRegistry, each implementing every optional method of its seam at the current SPI version.
// It is safe for concurrent use and copies every value in and out.
//
//	es := memory.NewEventStore()
//	err := es.Append(ctx, "exec-1", []spi.Envelope{e0}, spi.AppendOptions{})
package memory
