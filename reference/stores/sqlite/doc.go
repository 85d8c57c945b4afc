// Package sqlite is the embedded reference store (modernc.org/sqlite, no cgo): EventStore,
// SnapshotStore, ArchiveStore and BranchRegistry in one database file, WAL journal, a busy timeout,
// and a versioned schema (PRAGMA user_version) migrated on Open. Every optional method of every seam
// is implemented at the current SPI version.
//
//	db, err := sqlite.Open(ctx, "/var/lib/loom/loom.db")
//	if err != nil { … }
//	defer db.Close()
//	events := db.Events()
//	err = events.Append(ctx, "exec-1", []spi.Envelope{e0}, spi.AppendOptions{})
package sqlite
