// Package kits holds the SPI conformance kits (spec §7, §10; DESIGN §6): EventStore, SnapshotStore,
// ArchiveStore and BranchRegistry. A kit is data — a list of Check values {ID, Clauses, Level,
// Requires, Since, Run} — with two drivers: RunT / EventStore(t, factory) for Go tests (one subtest
// per check id, a fresh target and a timeout each), and Run for reports (one Result per check:
// pass, fail, skip or unknown; a hang, panic or crash of the target is unknown, never a hung run).
// CheckEventStore and its siblings return errors.Join of the violations for callers outside go test.
// The kits hold every check certify runs on a seam (only the bridge protocol's own checks, in
// kits/bridgekit, need the wire), and RunT fails a subtest exactly where certify would not certify:
// a required check that failed or has no verdict; a recommendation not met is logged and fails only
// under Options.Strict (LOOM_KITS_STRICT=1), as certify --strict (I-CERT-62). A check cut short by
// its time limit names the call into the target that did not return (I-CERT-61).
//
// A check runs only when the target implements the optional methods it requires (spi.Has) and the
// SPI version the target is held to (the lower of Options.SpiVersion and the target's claim) is at
// least the check's; otherwise it is skipped with a message saying why. Failure messages read
// `<check id> [<clause ids>]: Op(args) = got, want want`, with a (-want +got) diff of the values
// as JSON (internal/jsondiff) when they differ. Concurrent-client checks record histories and judge them with porcupine.
//
//	func TestMyStore(t *testing.T) {
//		kits.EventStore(t, func(ctx context.Context) (spi.EventStore, func(), error) {
//			s := mystore.New()
//			return s, s.Close, nil
//		})
//	}
//
//	results, err := kits.Run(ctx, kits.EventStoreKit(), factory, kits.Options{SpiVersion: "2.6.0"})
//	if kits.Certified(results) { … }
//
// The kits prove themselves: package kits/broken holds one deliberately broken store per rule and a
// test that each is rejected by the check meant for it. docs/spi.md states every rule checked here.
//
// Files are named for the seam and the family of rules they check (eventstore_fencing.go,
// readmodelstore_cursors.go, …; the seam's own file, eventstore.go, holds its kit table). Helpers
// every seam uses live in files named for them (envelopes.go, values.go, names.go, readers.go,
// respell.go, …); a seam's files use those, never another seam's. kits/broken is laid out the same
// way.
package kits
