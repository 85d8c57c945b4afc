//go:build unix

package vectors

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the foreign fold in its own process group so a kill reaches anything it
// started (a wrapper script's interpreter, for example).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the process group the foreign fold leads.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
