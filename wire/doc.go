// Package wire groups the JSON-RPC carriers of the project. The store bridge lives in
// wire/bridge: a language-neutral protocol (docs/bridge.md) through which `loom-conform certify`
// runs the SPI conformance kits against a store written in any language, with a server
// (bridge.NewServer, used by `loom-conform serve-store`) and a client that implements the spi
// interfaces (bridge.Dial). wire/faultproxy injects connection faults between the two, and
// wire/dockertestadapter lets suites built on ory/dockertest certify a container they started.
//
//	c, err := bridge.Dial(ctx, "http://127.0.0.1:7450/", bridge.ClientOptions{})
//	if err != nil { return err }
//	kits.EventStore(t, func(ctx context.Context) (spi.EventStore, func(), error) {
//		return c.EventStore(), nil, nil
//	})
package wire
