// Package bridge is the store bridge: JSON-RPC 2.0 over HTTP through which a store written in any
// language is certified against the SPI conformance kits (DESIGN §7, docs/bridge.md). One wire
// method per SPI method (eventStore.append, snapshotStore.loadLatest, …) plus bridge.handshake,
// which names the implementation and, per seam, the SPI version claimed and the methods
// implemented. Typed spi errors travel as documented error codes and come back as the same typed
// errors, so errors.Is works on the client. Every message has a JSON Schema in schema/ (embedded,
// SchemaFS); the client checks every response against it.
//
// Server side, NewServer wraps Go stores (loom-conform serve-store). Client side, Dial returns a
// Client whose EventStore, SnapshotStore, ArchiveStore and BranchRegistry implement the spi
// interfaces; optional methods the handshake does not declare answer spi.ErrUnsupported and report
// false from spi.Has, so a kit skips them.
//
//	srv, _ := bridge.NewServer(bridge.Stores{EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
//	url, stop, _ := bridge.Start("127.0.0.1:0", srv)
//	defer stop()
//	c, _ := bridge.Dial(ctx, url, bridge.ClientOptions{})
//	err := c.EventStore().Append(ctx, "exec-1", events, spi.AppendOptions{})
//	if errors.Is(err, spi.ErrConflict) { /* lost the race for that sequence */ }
package bridge
