// Package manifest holds the kernel's contract versions as code: the syscall ABI (K1), the event
// schema (K5), the wire ABI (ADR 0026) and every SPI version with its method table (spec §7).
//
// KernelManifest aggregates them from the constants and tables in this package, so it cannot drift
// from them (spec §9). CheckCompatibility is the deployment gate: declared component versions are
// compatible with the manifest iff they share its major version.
//
//	m := manifest.KernelManifest()
//	r := manifest.CheckCompatibility(manifest.Declared{KernelAbi: "1.9.0"})
//	if !r.Compatible { fmt.Println(r.Reasons) }
package manifest
