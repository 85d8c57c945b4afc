//go:build unix

package cliverb

import (
	"os"
	"syscall"
)

// mapLog maps a log file of the given size read-only into memory: fold reads it in place, with no
// copy into the heap and no fresh pages to fault in for one. release unmaps it; nothing that
// points into it may be used afterwards. A file that cannot be mapped is read (readWhole).
func mapLog(f *os.File, size int64) (b []byte, release func(), err error) {
	if size == 0 {
		return []byte{}, func() {}, nil
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		b, err = readWhole(f, size)
		return b, func() {}, err
	}
	return b, func() { _ = syscall.Munmap(b) }, nil
}
