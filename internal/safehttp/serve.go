package safehttp

import (
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
	set := &connSet{max: l.MaxConns, conns: map[*conn]struct{}{}}
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

// conn is a served connection and what the cap needs to know of it.
type conn struct {
	net.Conn
	state    atomic.Int32 // http.ConnState
	since    atomic.Int64 // unix nanoseconds of its last sign of life from the client
	bodyWait atomic.Bool  // a handler waits on its request body
	closed   atomic.Bool
}

func (c *conn) touch() { c.since.Store(time.Now().UnixNano()) }

// waiting reports whether the connection waits on its client: no complete request yet, idle
// between requests, or a request body that has not arrived.
func (c *conn) waiting() bool {
	st := http.ConnState(c.state.Load())
	return st == http.StateNew || st == http.StateIdle || c.bodyWait.Load()
}

func (c *conn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

type connSet struct {
	mu    sync.Mutex
	max   int
	conns map[*conn]struct{}
	// refusing counts connections being answered 503; past maxRefusing they are closed at once.
	refusing atomic.Int32
}

const maxRefusing = 64

// admit adds c, closing the connection that has waited longest on its client when the set is
// full. It reports false when every connection is busy for its client.
func (s *connSet) admit(c *conn) bool {
	s.mu.Lock()
	var victim *conn
	if len(s.conns) >= s.max {
		for o := range s.conns {
			if o.waiting() && (victim == nil || o.since.Load() < victim.since.Load()) {
				victim = o
			}
		}
		if victim == nil {
			s.mu.Unlock()
			return false
		}
		delete(s.conns, victim)
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
	return true
}

func (s *connSet) state(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok {
		return
	}
	c.state.Store(int32(st))
	c.touch()
	if st == http.StateClosed || st == http.StateHijacked {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}
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
		c.state.Store(int32(http.StateNew))
		c.touch()
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
		b.c.bodyWait.Store(true)
	}
	n, err := b.ReadCloser.Read(p)
	if b.c != nil {
		b.c.bodyWait.Store(false)
		if n > 0 {
			b.c.touch()
		}
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
