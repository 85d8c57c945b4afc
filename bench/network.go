package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/internal/servetest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The network figures (docs/performance.md, "Network servers"): how serve-store holds up against
// slow clients and against many concurrent reads of a large execution. Each runs the command line
// as a child, so its file descriptors and memory are its own.

// Served is a running server child (servetest.Served).
type Served = servetest.Served

// Serve starts `cli serve-store --backend backend` and waits for its address.
func Serve(cli, backend string, args ...string) (*Served, error) {
	return servetest.Start(cli, append([]string{"serve-store", "--backend", backend}, args...)...)
}

// HandshakeLatencies dials n fresh connections, one after the other, each posting
// bridge.handshake, and returns how long each took to answer (a failure counts as its time out).
func HandshakeLatencies(url string, n int, timeout time.Duration) []time.Duration {
	const body = `{"jsonrpc":"2.0","id":1,"method":"bridge.handshake","params":{"client":"bench"}}`
	out := make([]time.Duration, 0, n)
	for range n {
		hc := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		start := time.Now()
		resp, err := hc.Post(url, "application/json", strings.NewReader(body))
		d := time.Since(start)
		if err != nil {
			d = timeout
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
				d = timeout
			}
		}
		out = append(out, d)
		time.Sleep(50 * time.Millisecond)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// SlowClients holds n connections to addr open the way attackers do, until ctx ends, and keeps
// the number it holds in open: a quarter connect and send nothing, a quarter send part of their
// headers and then a byte every few seconds, a quarter send headers and one body byte and then a
// byte every few seconds, a quarter make one request and keep the connection idle. A connection
// the server closes is opened again after reopen (slowloris re-creates its dead sockets once per
// loop; 0 is a connection flood), or never when reopen is negative. started counts the slow clients that have made their first
// attempt.
func SlowClients(ctx context.Context, addr string, n int, reopen time.Duration, open, started *atomic.Int64) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := true
			for ctx.Err() == nil {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if first {
					started.Add(1) // it has tried once
					first = false
				}
				if err != nil {
					sleepCtx(ctx, 200*time.Millisecond)
					continue
				}
				open.Add(1)
				slow(ctx, c, i%4)
				open.Add(-1)
				c.Close()
				if reopen < 0 {
					<-ctx.Done()
					return
				}
				sleepCtx(ctx, reopen)
			}
		}()
	}
	wg.Wait()
}

// slow holds one connection in the given manner until the server closes it or ctx ends.
func slow(ctx context.Context, c net.Conn, kind int) {
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	closed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, c); close(closed) }() // notices the server's close
	var drip string
	switch kind {
	case 1:
		_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
		drip = "X"
	case 2:
		_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
		drip = " "
	case 3:
		const hs = `{"jsonrpc":"2.0","id":1,"method":"bridge.handshake"}`
		_, _ = fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(hs), hs)
	}
	for {
		select {
		case <-closed:
			return
		case <-time.After(5 * time.Second):
			if drip != "" {
				if _, err := io.WriteString(c, drip); err != nil {
					return
				}
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// LoadExecution appends an execution of n envelopes of size bytes of payload each to the bridge.
func LoadExecution(ctx context.Context, url, execID string, n, size int) error {
	c, err := bridge.Dial(ctx, url, bridge.ClientOptions{CallTimeout: time.Minute})
	if err != nil {
		return err
	}
	defer c.Close()
	payload, _ := json.Marshal(strings.Repeat("x", size))
	for i := range n {
		ev := spi.Envelope{ID: fmt.Sprintf("%s-%d", execID, i), WorkflowID: "w", ExecutionID: execID, EventType: "BENCH",
			Sequence: int64(i), Timestamp: 1, Payload: payload}
		if err := c.EventStore().Append(ctx, execID, []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// ConcurrentReads has readers clients each read execID rounds times over a connection of its own,
// at once, and returns the bytes they read. With leave set each reader takes only the start of the
// answer and hangs up, as a client that goes away does.
func ConcurrentReads(ctx context.Context, url, execID string, readers, rounds int, leave bool) (int64, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eventStore.read","params":{"executionId":%q}}`, execID)
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			for range rounds {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				var n int64
				if leave {
					n, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
				} else {
					n, err = io.Copy(io.Discard, resp.Body)
				}
				resp.Body.Close()
				if leave {
					hc.CloseIdleConnections()
				}
				total.Add(n)
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return total.Load(), <-errs
}
