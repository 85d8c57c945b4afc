//go:build !unix

package cliverb

import "os"

// mapLog reads a log file whole where memory mapping is not available.
func mapLog(f *os.File, size int64) ([]byte, func(), error) {
	b, err := readWhole(f, size)
	return b, func() {}, err
}
