// Package foldprops is the fold property kit (spec §3, §4; DESIGN §4, §6): generators of realistic
// event logs and properties, each naming its clauses, that any fold with the signature of
// fold.Fold can be held to.
//
// Generators (reusable by the vectors generator, the kernel and deploy-sim):
//
//   - Log(GenOptions{Profile, MaxActions, CoreOnly, Unusual, Hostile}): one execution's dense log — steps,
//     retries, typed and untyped failures, repeated decisions, stamped and unstamped emits, parks
//     and null/non-null resumes on ordinary and reserved gates, parked failures, resumeAs
//     re-opens, siblings settling after the execution ended, migrations, metering, kernel-stamped and unstamped Wave 2 facts, quarantine,
//     unknown types and __proto__ container keys — limited to what Profile's schema knows. Hostile
//     adds extreme numbers (1e400, -0, 1e-400, 2^53+1), odd Unicode (lone surrogates, escaped
//     spellings of member names) and reserved keys in any payload or metadata member, and repeated
//     members (I-FOLD-29, I-FOLD-30, I-FOLD-31).
//   - JSONValue(): values rich in canonical-JSON hard cases.
//
// Properties (Properties(), run by Run(t, target)): snapshot at every k over hostile logs too (as
// is, through canonical JSON and through a jsonb key-reordering round trip: every printed state
// reads back), determinism, no mutation of the caller's
// snapshot or events, unknown types inert, status moved only by execution-level events,
// cross-version snapshots with documented exceptions classified (Classify) and anything else a
// defect, mixed fleets, and a differential check against ModelFold on the core subset.
//
// Example:
//
//	func TestMyFold(t *testing.T) {
//		foldprops.Run(t, foldprops.Target{Name: "mine", Fold: myFold, Normalize: myNormalize})
//	}
//
// Case counts follow rapid: 100 per property by default; `RAPID_CHECKS=5000 go test ./kits/foldprops`
// (or -rapid.checks) runs longer, as `make fuzz` does. A failing case prints rapid's seed and the
// shrunk log as NDJSON, ready for `loom-conform fold`.
package foldprops
