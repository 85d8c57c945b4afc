package servetest

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/loom-kernel/loom-conform/internal/childproc"
)

// Served is a running server child: serve-store or serve-kernel of the CLI binary.
type Served struct {
	URL  string // http://ADDR/
	Addr string // host:port
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs bin with args (a serve verb and its flags) and waits for its first line, "listening
// http://ADDR/". Its standard error goes to this process's.
func Start(bin string, args ...string) (*Served, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = childproc.Attr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening http://") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s %s: first line %q: %v", bin, strings.Join(args, " "), line, err)
	}
	s := &Served{URL: strings.TrimSpace(strings.TrimPrefix(line, "listening ")), cmd: cmd, done: make(chan struct{})}
	u, err := url.Parse(s.URL)
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.Addr = u.Host
	go func() { _, _ = io.Copy(io.Discard, out); _ = cmd.Wait(); close(s.done) }()
	return s, nil
}

// Pid is the child's process id.
func (s *Served) Pid() int { return s.cmd.Process.Pid }

// Stop ends the child (SIGTERM: it shuts down as on Ctrl-C) and waits for it.
func (s *Served) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
}

// Kill ends the child at once (SIGKILL: kill -9, nothing flushed) and waits for it.
func (s *Served) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// RSS reads the child's current and peak resident set in bytes (/proc/PID/status).
func (s *Served) RSS() (cur, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.Pid()))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				cur = kb * 1024
			} else {
				peak = kb * 1024
			}
		}
	}
	return cur, peak, nil
}

// ResetPeak resets the child's peak resident set to its current one (/proc/PID/clear_refs, 5).
func (s *Served) ResetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.Pid()), []byte("5"), 0o200)
}
