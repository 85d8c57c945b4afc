// Package fitness will hold the registry of fitness gates (id, what, where enforced) run by
// `loom-conform fitness`, the G2 relative-ratio bench, and the capability-badge checker
// (spec §1 G2, §10). Nothing here is implemented yet.
package fitness
