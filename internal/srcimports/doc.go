// Package srcimports reads the import paths of Go sources, for tests that hold a package to an
// architecture rule: the fold imports nothing that gives it ambient input (spec §1 P2), the kernel
// nothing that carries cloud-provider logic (spec §6).
//
//	paths, err := srcimports.Of("stamp.go", src) // ["time"]
//	files, err := srcimports.Dir("../kernel")     // file -> import paths, test files left out
package srcimports
