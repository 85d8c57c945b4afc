//go:build linux

package childproc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// When LOOM_CHILDPROC_PARENT is set, the test binary plays the harness: it starts a long-lived
// child with Attr, prints the child's pid and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("LOOM_CHILDPROC_PARENT") == "1" {
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = Attr()
		if err := cmd.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		select {}
	}
	os.Exit(m.Run())
}

// Reference: DESIGN §7.1 — an --exec target dies with the harness, also when the harness is
// SIGKILLed and runs no cleanup (issue: a bridge still served 15 minutes later).
func TestChildDiesWithKilledParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "LOOM_CHILDPROC_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("parent printed no child pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("parent said %q", line)
	}
	defer KillGroup(child)
	if !alive(child) {
		t.Fatalf("child %d is not running before the parent dies", child)
	}
	_ = parent.Process.Signal(syscall.SIGKILL)
	_ = parent.Wait()
	// The kernel delivers the parent-death signal at once; poll a bounded number of rounds for the
	// reaped child to disappear (it is reparented to init, which reaps it).
	for range 200 {
		if !alive(child) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("child %d still runs after its parent was SIGKILLed, want it dead", child)
}

// alive reports whether pid runs (a zombie awaiting its reaper counts as dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
