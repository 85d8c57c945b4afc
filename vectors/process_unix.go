//go:build unix

package vectors

import (
	"os/exec"

	"github.com/loom-kernel/loom-conform/internal/childproc"
)

// setProcessGroup puts the foreign fold in its own process group so a kill reaches anything it
// started (a wrapper script's interpreter, for example), and ties it to the harness's life.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = childproc.Attr()
}

// killProcessGroup kills the process group the foreign fold leads.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	childproc.KillGroup(cmd.Process.Pid)
	_ = cmd.Process.Kill()
}
