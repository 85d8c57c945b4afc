//go:build unix

package childproc

import "syscall"

// Signal sends sig to the process group pid leads.
func Signal(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }

// KillGroup kills the process group pid leads (a stopped group is continued first, so it dies).
func KillGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGCONT)
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
