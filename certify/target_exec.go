package certify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/internal/childproc"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/internal/tailbuf"
)

// ExecTarget starts a bridge as a subprocess (no shell) and reads its address from the first line
// of its standard output: "listening http://HOST:PORT/" or just the URL (docs/bridge.md).
type ExecTarget struct {
	// Command is the command line, split like a shell would split words (quotes and backslashes)
	// but never run by one.
	Command string
	Env     []string // extra environment, KEY=VALUE
}

func (t ExecTarget) Describe() Identity {
	return Identity{Kind: "exec", Spec: t.Command, Flag: "--exec " + shq.Quote(t.Command)}
}

func (t ExecTarget) Start(ctx context.Context) (*Running, error) {
	args, err := SplitCommand(t.Command)
	if err != nil {
		return nil, fmt.Errorf("--exec %q: %v", t.Command, err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), t.Env...)
	cmd.SysProcAttr = childproc.Attr() // its own group, and dead when the harness dies (even by SIGKILL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logs := tailbuf.New(256 << 10)
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("--exec %q: %w", t.Command, err)
	}
	exited := make(chan struct{})
	var waitErr error
	firstLine := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		firstLine <- line
		_, _ = io.Copy(logs, r)
	}()
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	p := &process{cmd: cmd, exited: exited}
	run := &Running{Identity: t.Describe(), Pauser: p,
		Logs: func(context.Context) string { return logs.String() },
		Stop: func(context.Context) error { p.stop(); return nil },
		Alive: func(context.Context) error {
			select {
			case <-exited:
				return fmt.Errorf("the bridge process (pid %d) %s", cmd.Process.Pid, exitWords(waitErr))
			default:
			}
			if childproc.Stopped(cmd.Process.Pid) {
				return fmt.Errorf("the bridge process (pid %d) is stopped (SIGSTOP or a debugger) and answers nothing", cmd.Process.Pid)
			}
			return nil
		}}
	run.Identity.PID = cmd.Process.Pid
	exitedEarly := func() error {
		return fmt.Errorf("--exec %q: the process %s before printing its listening line (\"listening http://HOST:PORT/\"); %s",
			t.Command, exitWords(waitErr), stderrWords(logs.String()))
	}
	select {
	case line := <-firstLine:
		if line == "" {
			// Its stdout closed with nothing on it: it is exiting, and how it exits is the cause.
			select {
			case <-exited:
				return run, exitedEarly()
			case <-time.After(2 * time.Second):
			}
		}
		url, err := parseListenLine(line)
		if err != nil {
			p.stop()
			return run, fmt.Errorf("--exec %q: first line of stdout %q: %v", t.Command, strings.TrimSpace(line), err)
		}
		run.URL, run.Identity.URL = url, url
		return run, nil
	case <-exited:
		return run, exitedEarly()
	case <-ctx.Done():
		p.stop()
		return run, fmt.Errorf("--exec %q printed no address within the start timeout: %w", t.Command, ctx.Err())
	}
}

// parseListenLine finds the bridge URL in the first line a bridge prints (a URL in brackets or
// quotes is taken too).
func parseListenLine(line string) (string, error) {
	for _, f := range strings.Fields(line) {
		f = strings.Trim(f, "()[]<>\"',;")
		if strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") {
			return f, nil
		}
	}
	return "", errors.New(`want "listening http://HOST:PORT/"`)
}

// exitWords says how a process ended: "exited with status 1", "was killed by signal killed".
func exitWords(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exited with status 0"
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return "ended: " + err.Error()
}

// stderrWords is the tail of what a process wrote to stderr, or that it wrote nothing.
func stderrWords(stderr string) string {
	if strings.TrimSpace(stderr) == "" {
		return "it wrote nothing to stderr"
	}
	return "its stderr ends: " + strings.TrimSpace(clipStr(stderr, 500))
}

type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

// stop sends SIGTERM to the process group, then SIGKILL after three seconds.
func (p *process) stop() {
	p.once.Do(func() {
		pid := p.cmd.Process.Pid
		_ = childproc.Signal(pid, childproc.SigCont)
		_ = childproc.Signal(pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(3 * time.Second):
			childproc.KillGroup(pid)
			<-p.exited
		}
	})
}

func (p *process) Pause(context.Context) error {
	return childproc.Signal(p.cmd.Process.Pid, childproc.SigStop)
}

func (p *process) Resume(context.Context) error {
	return childproc.Signal(p.cmd.Process.Pid, childproc.SigCont)
}

// SplitCommand splits a command line into words: blanks separate, single quotes keep everything,
// double quotes keep everything but \" and \\, a backslash outside quotes escapes the next
// character. No expansion of any kind.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}

func clipStr(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
