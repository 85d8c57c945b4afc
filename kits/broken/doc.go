// Package broken holds deliberately defective stores, one defect each, that prove the conformance
// kits: each wraps the memory reference store and breaks exactly one rule, and names the kit check
// that must reject it. The package test runs each against its check and asserts the verdict. The
// files follow kits/: one per seam and rule family (eventstore_fencing.go holds the broken fencing
// stores), the seam's own file its lists (EventStores, registered through violates, and
// ClassEventStores, the rule classes that apply across seams, registered with their clauses).
//
//	for _, b := range broken.EventStores() {
//		results, _ := kits.Run(ctx, kits.EventStoreKit(), b.Factory(), kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$"})
//		// results[0].Verdict == kits.Fail
//	}
package broken
