// Package certify certifies a store through the store bridge (DESIGN §7, docs/bridge.md): it
// starts or finds the target (a reference store served in process, a URL, a subprocess, or an image
// run on the Docker engine), dials its bridge, runs the bridge protocol kit, the selected SPI kits
// and, on request, the fault kit check by check with live progress, applies an expected-failures
// ledger, always tears the target down, and renders the report as text, JSON, JUnit XML, one HTML
// page or an SVG badge. `loom-conform certify` is a thin shell over Run.
//
//	rep, err := certify.Run(ctx, certify.ImageTarget{Image: "acme/store-bridge:1.4"},
//		certify.Config{Kinds: certify.Kinds(), Progress: os.Stderr})
//	if err != nil { return err } // bad configuration only
//	_ = certify.WriteCertificate(os.Stdout, rep)
//	os.Exit(rep.Verdict.ExitCode()) // 0 only for certify.Certified
//
// Go values get the same certificate without a process of their own: RunStore serves them by a
// bridge in this process (StoreTarget) and runs exactly what the command line runs.
//
//	rep, err := certify.RunStore(ctx, bridge.Stores{
//		Implementation: bridge.Implementation{Name: "acme-store", Version: "1.4.0"},
//		EventStore:     myStore, // and SnapshotStore, ArchiveStore, … as served
//	}, certify.Config{Kinds: []string{"eventstore"}})
//	_ = certify.WriteBadge(badgeFile, rep) // WriteCertificate, WriteJSON, WriteJUnit, WriteHTML alike
//
// A run has one Verdict (I-CERT-1): certified, certified-with-waivers, held-to-older-version,
// partial, not-certified or target-failed; every renderer and the exit code derive from it.
// Other certifying verbs fill the same Report and call Conclude. Check verdicts (I-BRIDGE-6): a failing MUST check or an unknown one (timeout, the bridge stopped
// answering) keeps the target from being certified; a broken link never turns into a fail, a
// protocol breach always does. The ledger is kept true (I-BRIDGE-8).
package certify
