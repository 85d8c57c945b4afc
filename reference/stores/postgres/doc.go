// Package postgres is the PostgreSQL reference store (pgx v5): EventStore, SnapshotStore,
// ArchiveStore and BranchRegistry in one schema. Appends, fencing and conditional appends run
// inside transactions that lock the execution's row; storeNow reports database time, so a fleet
// shares one clock (spec §7). Payloads, metadata and states are stored as text, so values round-trip
// exactly (jsonb would refuse \u0000 in strings). Ids are compared with COLLATE "C", so paging is in
// byte order whatever the database locale.
//
//	db, err := postgres.Open(ctx, os.Getenv("LOOM_CONFORM_POSTGRES_DSN"), "loom")
//	if err != nil { … }
//	defer db.Close()
//	err = db.Events().Append(ctx, "exec-1", []spi.Envelope{e0}, spi.AppendOptions{})
package postgres
