//go:build unix && !linux

package childproc

import "syscall"

// Attr is the SysProcAttr of an owned child: its own process group. Without a parent-death signal
// on this system, the harness's signal handlers and KillGroup are what stop it.
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
