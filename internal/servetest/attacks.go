package servetest

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Pressure is a set of connections pressing on a server until Stop.
type Pressure struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// Open counts the connections open now; Moved the bytes they sent or read.
	Open, Moved atomic.Int64
}

// Stop closes every connection and waits for them.
func (p *Pressure) Stop() {
	p.cancel()
	p.wg.Wait()
}

func press(ctx context.Context, n int, each func(ctx context.Context, i int, p *Pressure)) *Pressure {
	ctx, cancel := context.WithCancel(ctx)
	p := &Pressure{cancel: cancel}
	for i := range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			each(ctx, i, p)
		}()
	}
	return p
}

// dial opens a connection closed when ctx ends.
func dial(ctx context.Context, addr string) (net.Conn, func(), error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	return c, func() { stop(); c.Close() }, nil
}

func head(contentType, extra string) string {
	return "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + contentType + "\r\n" + extra + "\r\n"
}

// TrickleUploads holds n requests open, each declaring size bytes of application/json and sending
// one byte every every — the upload of a client that is barely sending.
func TrickleUploads(ctx context.Context, addr string, n int, size int64, every time.Duration) *Pressure {
	return press(ctx, n, func(ctx context.Context, _ int, p *Pressure) {
		c, done, err := dial(ctx, addr)
		if err != nil {
			return
		}
		defer done()
		if _, err := io.WriteString(c, head("application/json", fmt.Sprintf("Content-Length: %d\r\n", size))+"["); err != nil {
			return
		}
		p.Open.Add(1)
		defer p.Open.Add(-1)
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
			if _, err := io.WriteString(c, " "); err != nil {
				return
			}
			p.Moved.Add(1)
		}
	})
}

// OpenBodies holds one request open per element of firsts, its body of contentType sent chunked:
// the element as its first chunk, then nothing — a stream waiting for its next line.
func OpenBodies(ctx context.Context, addr, contentType string, firsts []string) *Pressure {
	return press(ctx, len(firsts), func(ctx context.Context, i int, p *Pressure) {
		c, done, err := dial(ctx, addr)
		if err != nil {
			return
		}
		defer done()
		first := firsts[i]
		if _, err := fmt.Fprintf(c, "%s%x\r\n%s\r\n", head(contentType, "Transfer-Encoding: chunked\r\n"), len(first), first); err != nil {
			return
		}
		p.Open.Add(1)
		defer p.Open.Add(-1)
		go func() { n, _ := io.Copy(io.Discard, c); p.Moved.Add(n) }() // the acks of a stream
		<-ctx.Done()
	})
}

// SlowReaders has n clients each post body (application/json) and read the answer at about rate
// bytes a second, with a small receive buffer, until the answer ends or ctx does; a client whose
// answer ended posts again.
func SlowReaders(ctx context.Context, addr, body string, n, rate int) *Pressure {
	return press(ctx, n, func(ctx context.Context, _ int, p *Pressure) {
		for ctx.Err() == nil {
			c, done, err := dial(ctx, addr)
			if err != nil {
				return
			}
			if tc, ok := c.(*net.TCPConn); ok {
				// small, but not below loopback's 64 KiB segment (TCP itself would stall)
				_ = tc.SetReadBuffer(128 << 10)
			}
			if _, err := fmt.Fprintf(c, "%s%s", head("application/json", fmt.Sprintf("Content-Length: %d\r\n", len(body))), body); err != nil {
				done()
				return
			}
			p.Open.Add(1)
			buf := make([]byte, max(rate/10, 1))
			for ctx.Err() == nil {
				n, err := c.Read(buf)
				p.Moved.Add(int64(n))
				if err != nil {
					break
				}
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
			p.Open.Add(-1)
			done()
		}
	})
}
