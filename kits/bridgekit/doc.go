// Package bridgekit is the store bridge protocol kit (docs/bridge.md): the checks of the bridge
// itself that certify runs before the store kits — the handshake, declared methods that answer,
// error codes, unknown methods and malformed requests, the plugin tier's wire forms (the chunked
// content stream, query limits) and notifications that are never executed. What a store keeps is
// the store kits' business (package kits), which certify runs over the same bridge and a Go author
// runs in go test, so both routes give one verdict.
//
//	c, err := bridge.Dial(ctx, url, bridge.ClientOptions{})
//	if err != nil { return err }
//	results, err := kits.Run(ctx, bridgekit.Kit(), func(context.Context) (*bridge.Client, func(), error) {
//		return c, nil, nil
//	}, kits.Options{SpiVersion: "1.0.0"})
package bridgekit
