// Package gcpace lets a batch command run the garbage collector less often while its live heap is
// small, and hands the collector back to its default pace once the heap has grown past a bound.
//
// A fold of a log of tens of megabytes spends about a tenth of its CPU time in collection
// cycles whose cost is mostly fixed (stopping and signalling goroutines, the mark set-up), because
// the default pace starts a cycle at every doubling of a small heap. Pacing the collector at a
// higher percentage removes most of those cycles; bounding it by the live heap keeps the extra
// memory a constant, not a multiple of a large state. HoldThenRelax goes further for a command
// whose whole heap is small: no cycle at all until the heap reaches a memory limit, then Relax.
package gcpace
