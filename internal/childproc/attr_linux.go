package childproc

import "syscall"

// Attr is the SysProcAttr of an owned child: its own process group, and SIGKILL when the harness
// (the thread that started it; Go keeps that thread alive) dies.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
