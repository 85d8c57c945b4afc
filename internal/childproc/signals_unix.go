//go:build unix

package childproc

import "syscall"

// SigStop and SigCont freeze and thaw a child (certify --faults, deploy simulation's zombies).
const (
	SigStop = syscall.SIGSTOP
	SigCont = syscall.SIGCONT
)
