//go:build !unix

package childproc

import "syscall"

// SigStop and SigCont have no meaning where processes cannot be frozen: sending them fails
// (Signal answers syscall.EWINDOWS, os.Process.Signal an error), so a check that would freeze a
// child says it could not.
const (
	SigStop = syscall.Signal(0x13)
	SigCont = syscall.Signal(0x12)
)
