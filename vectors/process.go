package vectors

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/internal/tailbuf"
)

// maxLine bounds one response line (a folded state can be large, but not unbounded).
const maxLine = 64 << 20

// Process drives a foreign fold: one long-lived subprocess speaking the line protocol on its
// stdin and stdout (docs/vectors.md). It is started on the first request; when a request gets no
// answer in time, or the process dies or answers out of protocol, the process is killed, the
// request fails (the vector's verdict is unknown) and the next request starts a fresh process.
// A Process serves one request at a time; Close ends it.
type Process struct {
	argv   []string
	dir    string
	stderr *tailbuf.Buffer

	mu      sync.Mutex // guards the fields below against Close from another goroutine
	cur     *child
	starts  int
	startup time.Duration // summed over the children that answered: start to first answer
	closed  bool
}

// child is one running incarnation of the foreign fold.
type child struct {
	started  time.Time // when it was started
	answered bool      // whether it has answered a request (guarded by Process.mu)
	cmd      *exec.Cmd
	stdin    *os.File
	lines    chan line
	done     chan struct{}
	// exited is closed when cmd.Wait returns; waitErr is its result (read after exited).
	exited  chan struct{}
	waitErr error
}

type line struct {
	b   []byte
	err error
}

// NewProcess returns a driver for the command argv (no shell is involved; see SplitArgs). dir is
// the working directory ("" = the current one). The command must exist: a command that cannot be
// found is an error now rather than an unknown verdict per vector.
func NewProcess(argv []string, dir string) (*Process, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("cannot run %q: %w", ee.Name, ee.Err)
		}
		return nil, fmt.Errorf("cannot run %q: %w", argv[0], err)
	}
	return &Process{argv: argv, dir: dir, stderr: tailbuf.New(4096)}, nil
}

// Starts reports how many times the process was started (1 + restarts).
func (p *Process) Starts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// Overhead reports what starting processes cost the run (I-PERF-12): how many were started, and
// the time from starting each to its first answer, summed over those that answered.
func (p *Process) Overhead() (starts int, startup time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts, p.startup
}

// firstAnswer records a child's first answer: its start-up ends there.
func (p *Process) firstAnswer(c *child) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !c.answered {
		c.answered = true
		p.startup += time.Since(c.started)
	}
}

// Answer implements Folder. ctx bounds the wait for the answer (the runner sets the per-vector
// timeout); on expiry the process is killed.
func (p *Process) Answer(ctx context.Context, req Request) (Response, error) {
	msg, err := encodeLine(req)
	if err != nil {
		return Response{}, fmt.Errorf("encode request: %w", err)
	}
	c, err := p.child()
	if err != nil {
		return Response{}, err
	}
	writeErr := make(chan error, 1)
	go func() {
		_, err := c.stdin.Write(msg)
		writeErr <- err
	}()
	for {
		select {
		case err := <-writeErr:
			if err != nil {
				return Response{}, p.fail(c, fmt.Errorf("write request: %w", err))
			}
			writeErr = nil
		case l := <-c.lines:
			if l.err != nil {
				return Response{}, p.fail(c, l.err)
			}
			p.firstAnswer(c)
			r, err := decodeResponse(l.b)
			if err != nil {
				return Response{}, p.fail(c, fmt.Errorf("protocol: %v: %q", err, clip(l.b, 200)))
			}
			if r.ID != req.ID {
				return Response{}, p.fail(c, fmt.Errorf("protocol: answer for id %q while waiting for %q", r.ID, req.ID))
			}
			return r, nil
		case <-ctx.Done():
			return Response{}, p.fail(c, fmt.Errorf("no answer within the timeout (%v)", context.Cause(ctx)))
		}
	}
}

// child returns the running process, starting one if needed.
func (p *Process) child() (*child, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("exec: process driver closed")
	}
	if p.cur != nil {
		return p.cur, nil
	}
	c, err := p.start()
	if err != nil {
		return nil, err
	}
	p.cur = c
	p.starts++
	return c, nil
}

func (p *Process) start() (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr cannot stall Wait
	setProcessGroup(cmd)
	started := time.Now()
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, fmt.Errorf("exec %s: %w", p.argv[0], err)
	}
	inR.Close()
	outW.Close()
	c := &child{started: started, cmd: cmd, stdin: inW, lines: make(chan line), done: make(chan struct{}), exited: make(chan struct{})}
	go c.read(outR)
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// read forwards response lines until EOF or until the child is discarded.
func (c *child) read(r *os.File) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := readLine(br)
		var l line
		switch {
		case err == io.EOF:
			l.err = c.exitError()
		case err != nil:
			l.err = fmt.Errorf("read answer: %w", err)
		default:
			l.b = b
		}
		select {
		case c.lines <- l:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// exitError describes the end of the child's stdout: usually its exit.
func (c *child) exitError() error {
	select {
	case <-c.exited:
		if c.waitErr == nil {
			return errors.New("process exited (status 0) without answering")
		}
		return fmt.Errorf("process died without answering: %v", c.waitErr)
	case <-time.After(2 * time.Second):
		return errors.New("process closed its stdout without answering")
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if err == nil {
			return bytes.TrimRight(buf, "\r\n"), nil
		}
		if err != bufio.ErrBufferFull {
			if len(buf) > 0 && err == io.EOF {
				return nil, fmt.Errorf("unterminated last line %q: %w", clip(buf, 200), io.ErrUnexpectedEOF)
			}
			return nil, err
		}
		if len(buf) > maxLine {
			return nil, fmt.Errorf("answer line longer than %d bytes", maxLine)
		}
	}
}

// fail kills the child (the next request starts a fresh one) and returns err with the tail of
// the process's stderr.
func (p *Process) fail(c *child, err error) error {
	p.mu.Lock()
	if p.cur == c {
		p.cur = nil
	}
	p.mu.Unlock()
	// A fold that exited on its own (a crash, exit 1) says so: give it a moment to be reaped.
	select {
	case <-c.exited:
		if c.waitErr != nil {
			err = fmt.Errorf("%w (the fold exited: %v)", err, c.waitErr)
		} else {
			err = fmt.Errorf("%w (the fold exited with status 0)", err)
		}
	case <-time.After(200 * time.Millisecond):
	}
	c.kill()
	if t := p.stderr.Take(); t != "" {
		return fmt.Errorf("%w; stderr tail: %q", err, t)
	}
	return err
}

func (c *child) kill() {
	close(c.done)
	c.stdin.Close()
	killProcessGroup(c.cmd)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
	}
}

// Close ends the foreign fold: stdin is closed so it can exit by itself; it is killed if it has
// not exited within a second.
func (p *Process) Close() error {
	p.mu.Lock()
	c := p.cur
	p.cur = nil
	p.closed = true
	p.mu.Unlock()
	if c == nil {
		return nil
	}
	c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(time.Second):
	}
	c.kill()
	return nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
