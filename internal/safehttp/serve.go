package safehttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Limits bound what clients may hold of a server. Zero values take the defaults.
type Limits struct {
	// MaxConns caps the connections served at once (default 1024).
	MaxConns int
	// HeaderTimeout bounds reading a request's headers (default 10 s).
	HeaderTimeout time.Duration
	// BodyProgress is how long one read of a request body may wait for a byte (default 30 s).
	BodyProgress time.Duration
	// WriteProgress is how long one write of a response may wait for the client to take it
	// (default 30 s).
	WriteProgress time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this long (default 60 s).
	IdleTimeout time.Duration
	// ShutdownGrace is how long in-flight requests get when the server stops (default 5 s).
	ShutdownGrace time.Duration
}

// Defaults of Limits.
const (
	DefaultMaxConns      = 1024
	DefaultHeaderTimeout = 10 * time.Second
	DefaultBodyProgress  = 30 * time.Second
	DefaultWriteProgress = 30 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
)

// WithDefaults fills the zero fields.
func (l Limits) WithDefaults() Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.BodyProgress <= 0 {
		l.BodyProgress = DefaultBodyProgress
	}
	if l.WriteProgress <= 0 {
		l.WriteProgress = DefaultWriteProgress
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.ShutdownGrace <= 0 {
		l.ShutdownGrace = 5 * time.Second
	}
	return l
}

// Serve answers h on ln until ctx is done, then shuts down (in-flight requests get
// ShutdownGrace). It returns nil after a shutdown caused by ctx.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, l Limits) error {
	l = l.WithDefaults()
	set := &connSet{max: l.MaxConns}
	srv := &http.Server{
		Handler:           progress(h, l),
		ReadHeaderTimeout: l.HeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         set.state,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*conn); ok {
				return context.WithValue(ctx, connKey{}, tc)
			}
			return ctx
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(&capListener{Listener: ln, set: set}) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), l.ShutdownGrace)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

type connKey struct{}

// conn is a served connection and what the cap needs to know of it. The fields after Conn are
// guarded by the set's mutex.
type conn struct {
	net.Conn
	set        *connSet
	state      http.ConnState
	bodyWait   bool // a handler waits on its request body
	counted    bool // it holds a place under the cap
	prev, next *conn
	listed     bool // it is in the set's waiting list
	closed     atomic.Bool
}

// waiting reports whether the connection waits on its client: no complete request yet, idle
// between requests, or a request body that has not arrived.
func (c *conn) waiting() bool {
	return c.state == http.StateNew || c.state == http.StateIdle || c.bodyWait
}

func (c *conn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

// setBodyWait records that a handler starts or stops waiting on the request body.
func (c *conn) setBodyWait(on bool) {
	s := c.set
	s.mu.Lock()
	c.bodyWait = on
	s.place(c)
	s.mu.Unlock()
}

// connSet counts the connections under the cap and keeps the ones waiting on their clients in a
// list, the one waiting longest first, so admitting a connection at the cap costs the same however
// many are served.
type connSet struct {
	mu         sync.Mutex
	max, n     int
	head, tail *conn // the waiting list
	// refusing counts connections being answered 503; past maxRefusing they are closed at once.
	refusing atomic.Int32
}

const maxRefusing = 64

// place moves c to the end of the waiting list when it waits on its client (its latest sign of
// life is now), or takes it off the list when it does not.
func (s *connSet) place(c *conn) {
	s.unlist(c)
	if c.counted && c.waiting() {
		c.prev, c.next, c.listed = s.tail, nil, true
		if s.tail != nil {
			s.tail.next = c
		} else {
			s.head = c
		}
		s.tail = c
	}
}

func (s *connSet) unlist(c *conn) {
	if !c.listed {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		s.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		s.tail = c.prev
	}
	c.prev, c.next, c.listed = nil, nil, false
}

// admit adds c, closing the connection that has waited longest on its client when the set is
// full. It reports false when every connection is busy for its client.
func (s *connSet) admit(c *conn) bool {
	s.mu.Lock()
	victim := (*conn)(nil)
	if s.n >= s.max {
		if victim = s.head; victim == nil {
			s.mu.Unlock()
			return false
		}
		s.unlist(victim)
		victim.counted = false
		s.n--
	}
	c.set, c.state, c.counted = s, http.StateNew, true
	s.n++
	s.place(c)
	s.mu.Unlock()
	if victim != nil {
		go victim.Close() // off the accept loop: a flood is shed as fast as it arrives
	}
	return true
}

func (s *connSet) state(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c.state = st
	if st == http.StateClosed || st == http.StateHijacked {
		s.unlist(c)
		if c.counted {
			c.counted = false
			s.n--
		}
		return
	}
	s.place(c)
}

// refuse answers a connection past the cap with a 503 naming the cap, in the background, and
// closes it.
func (s *connSet) refuse(nc net.Conn) {
	if s.refusing.Add(1) > maxRefusing {
		s.refusing.Add(-1)
		_ = nc.Close()
		return
	}
	go func() {
		defer s.refusing.Add(-1)
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(time.Second))
		// Read the request's headers first (as far as they come within the second): a client
		// answered before it has written its request takes the answer for a broken connection.
		head := make([]byte, 0, 4<<10)
		for !bytes.Contains(head, []byte("\r\n\r\n")) && len(head) < cap(head) {
			n, err := nc.Read(head[len(head):cap(head)])
			head = head[:len(head)+n]
			if err != nil {
				break
			}
		}
		msg := fmt.Sprintf("the server holds %d connections, its limit, each busy for its client: retry shortly\n", s.max)
		_, _ = fmt.Fprintf(nc, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(nc, 64<<10)) // let the client read the answer before the close
	}()
}

type capListener struct {
	net.Listener
	set *connSet
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &conn{Conn: nc}
		if l.set.admit(c) {
			return c, nil
		}
		l.set.refuse(nc)
	}
}

// progress wraps h so each read of a request body and each write of a response must make progress
// within its limit, and so the cap knows when a handler waits on a body.
func progress(h http.Handler, l Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		c, _ := r.Context().Value(connKey{}).(*conn)
		_ = rc.SetWriteDeadline(time.Time{})
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &progressBody{ReadCloser: r.Body, rc: rc, d: l.BodyProgress, c: c}
		}
		h.ServeHTTP(&progressWriter{ResponseWriter: w, rc: rc, d: l.WriteProgress}, r)
	})
}

// ErrNoProgress is the error a body read gets when the client sent nothing for BodyProgress.
var ErrNoProgress = errors.New("the request body made no progress within the server's limit")

type progressBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	d    time.Duration
	c    *conn
	done bool
}

func (b *progressBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.d))
	if b.c != nil {
		b.c.setBodyWait(true)
	}
	n, err := b.ReadCloser.Read(p)
	if b.c != nil {
		b.c.setBodyWait(false)
	}
	if err != nil {
		b.done = true
		if err == io.EOF {
			// The body is complete: the connection's reads belong to the server again, which
			// watches for the client leaving while the handler works. (After any other error the
			// connection is not reused: its deadline stays.)
			_ = b.rc.SetReadDeadline(time.Time{})
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("%w (%s): %v", ErrNoProgress, b.d, err)
		} else if b.c != nil && b.c.closed.Load() {
			err = fmt.Errorf("the connection was closed to admit another (the server was at its connection limit and this body was not arriving): %w", err)
		}
	}
	return n, err
}

type progressWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
	d  time.Duration
}

func (w *progressWriter) Write(p []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	return w.ResponseWriter.Write(p)
}

func (w *progressWriter) Flush() {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.d))
	_ = w.rc.Flush()
}

// Unwrap lets http.NewResponseController reach the server's writer (full duplex, deadlines).
func (w *progressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
