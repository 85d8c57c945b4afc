// Package postgres is the PostgreSQL reference ExecutionDispatcher: a work queue claimed with
// FOR UPDATE SKIP LOCKED, leases on the database clock kept alive by heartbeats, so workers on many
// hosts share one database. It lives in the same schema as the reference stores
// (reference/stores/postgres), on the same pool:
//
//	db, _ := storespg.Open(ctx, dsn, "loom")
//	d, _ := postgres.New(ctx, db.Pool(), []string{"default"})
//	lease, ok, _ := d.Claim(ctx, spi.ClaimRequest{Worker: "host-1", Targets: []string{"default"}, TTL: 10 * time.Second})
package postgres
