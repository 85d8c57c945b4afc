package broken

import (
	"io"
	"net"
	"sync"
	"time"
)

// The round-trip stores' stand-in database: an echo server on 127.0.0.1 that answers every byte
// it reads, and the idle connections to it. A round-trip window is one byte sent and its echo read
// back over an open TCP connection — the kernel's loopback path and a wake-up on each side, what a
// store pays for a check it makes in the client before it sends the write. The server is one per
// process, started on the first round trip and kept, like a database a test run talks to; it holds
// no data, so no store sees another through it.
type loopback struct {
	addr string
	idle chan net.Conn
}

var theLoopback = sync.OnceValues(func() (*loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	return &loopback{addr: ln.Addr().String(), idle: make(chan net.Conn, 256)}, nil
})

// roundTripOnce makes one round trip to the loopback server. If the loopback cannot be reached,
// it pauses for as long as a round trip takes (midway) instead, so the window stays open.
func roundTripOnce() {
	l, err := theLoopback()
	if err != nil || l.ping() != nil {
		time.Sleep(midway)
	}
}

func (l *loopback) ping() error {
	var c net.Conn
	select {
	case c = <-l.idle:
	default:
		var err error
		if c, err = net.DialTimeout("tcp", l.addr, time.Second); err != nil {
			return err
		}
	}
	b := []byte{1}
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write(b); err != nil {
		_ = c.Close()
		return err
	}
	if _, err := io.ReadFull(c, b); err != nil {
		_ = c.Close()
		return err
	}
	select {
	case l.idle <- c:
	default:
		_ = c.Close()
	}
	return nil
}
