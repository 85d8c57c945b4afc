// Package spi holds the Go shapes of the kernel's storage seams (spec §7): the Envelope, and
// EventStore, SnapshotStore, ArchiveStore and BranchRegistry, and of the plugin-tier seams
// ContentStore, DurableStateStore and ReadModelStore. Each seam is a small required
// interface; each optional method is its own one-method interface (sometimes two methods that only
// make sense together) detected by type assertion, the io.WriterTo idiom. Typed errors
// (ErrConflict, ErrFenced, ErrNotFound, …) work with errors.Is and errors.As.
//
// A store states the SPI version it claims per seam with an optional method such as
// EventStoreSpiVersion() string. A decorator or a bridge client, which has every method but may
// forward to something that lacks one, also implements Capabilities; Has combines both tests.
//
// docs/spi.md gives the exact semantics of every method.
//
//	var s spi.EventStore = memory.NewEventStore()
//	err := s.Append(ctx, "exec-1", []spi.Envelope{e0, e1}, spi.AppendOptions{})
//	if errors.Is(err, spi.ErrConflict) { /* someone else appended sequence 0 first */ }
//	if rr, ok := s.(spi.RangeReader); ok && spi.Has(s, spi.MethodReadRange) {
//		tail, _ := rr.ReadRange(ctx, "exec-1", 1, 2)
//		_ = tail
//	}
package spi
