// Package broken holds deliberately defective stores, one defect each, that prove the conformance
// kits: each wraps the memory reference store and breaks exactly one rule, and names the kit check
// that must reject it. The package test runs each against its check and asserts the verdict.
//
//	for _, b := range broken.EventStores() {
//		results, _ := kits.Run(ctx, kits.EventStoreKit(), b.Factory(), kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$"})
//		// results[0].Verdict == kits.Fail
//	}
package broken
