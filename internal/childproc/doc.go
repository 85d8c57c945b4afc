// Package childproc starts the processes the harness owns — an --exec bridge or kernel, a foreign
// fold, a deploy-sim worker, a go test run — so that none outlives the harness (DESIGN §7.1): each
// child leads its own process group (so a stop reaches its own children), and on Linux the kernel
// kills it when the harness dies, also by SIGKILL, which no cleanup code survives to handle.
//
//	cmd := exec.Command("my-bridge", "--port", "0")
//	cmd.SysProcAttr = childproc.Attr()
//	_ = cmd.Start()
//	defer childproc.KillGroup(cmd.Process.Pid)
package childproc
