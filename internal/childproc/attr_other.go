//go:build !unix

package childproc

import (
	"os"
	"syscall"
)

// Attr is nil where process groups do not exist; KillGroup kills the process itself.
func Attr() *syscall.SysProcAttr { return nil }

// Signal is unsupported without process groups.
func Signal(pid int, sig syscall.Signal) error { return syscall.EWINDOWS }

// KillGroup kills the process.
func KillGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
