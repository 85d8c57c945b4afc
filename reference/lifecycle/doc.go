// Package lifecycle is the reference LogLifecycle (spec §7): the kernel-side caller of the store
// SPI's maintenance methods. Compact archives the exact envelopes it removes to the ArchiveStore
// before it truncates the log with deleteThrough, after saving the snapshot the remaining log
// resumes from; PruneSnapshots deletes only the range it judged safe, with a dry run backed by
// listSequences; ReadRange and Replay never read the archive (ReadArchived is the one path that
// does); Fencing says when a store offers no fencing (single node); Now uses storeNow when the
// store has it and the injected clock otherwise. The reference kernel resumes a compacted
// execution from that snapshot and the remaining log (docs/spi.md §12).
//
//	lc, _ := lifecycle.New(lifecycle.Config{Store: es, Snapshots: ss, Archive: as})
//	res, err := lc.Compact(ctx, "exec-1", 99) // archive 0..99, snapshot at 99, deleteThrough 99
package lifecycle
