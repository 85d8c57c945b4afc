package safehttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start serves h with l on a loopback port until the test ends.
func start(t *testing.T, h http.Handler, l Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = Serve(ctx, ln, h, l) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer waits (up to a bound far past every limit under test) for the server to close c.
func closedByServer(t *testing.T, c net.Conn, what string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server kept the connection open", what)
	}
}

var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, _ = w.Write(b)
})

// Reference: I-NET-3 — a client that sends part of its
// headers, or headers and one body byte, or nothing after a request, is cut off.
func TestSlowClientsAreCutOff(t *testing.T) {
	bodyErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		bodyErr <- err
	})
	l := Limits{HeaderTimeout: 150 * time.Millisecond, BodyProgress: 150 * time.Millisecond, IdleTimeout: 150 * time.Millisecond}
	addr := start(t, h, l)

	c := dial(t, addr)
	fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	closedByServer(t, c, "headers never finished")

	c = dial(t, addr)
	fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{")
	closedByServer(t, c, "a body that stopped after one byte")
	if err := <-bodyErr; !errors.Is(err, ErrNoProgress) {
		t.Errorf("the handler's body read = %v, want ErrNoProgress", err)
	}

	c = dial(t, addr)
	fmt.Fprint(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
	if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
		t.Fatal(err)
	}
	<-bodyErr
	closedByServer(t, c, "an idle keep-alive connection")
}

// Reference: I-NET-3 — at the connection cap the
// connection waiting longest on its client makes room for a new one; when every connection is
// busy for its client the new one gets a 503 naming the cap.
func TestConnectionCap(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	})
	addr := start(t, h, Limits{MaxConns: 2})
	// Two connections that never send a request hold the cap.
	idle1, idle2 := dial(t, addr), dial(t, addr)
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Post("http://"+addr+"/", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("a new client at the cap of idle connections: %v, want an answer", err)
	}
	resp.Body.Close()
	// The oldest idle one was closed to make room.
	_ = idle1.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := idle1.Read(make([]byte, 1)); err == nil {
		t.Errorf("the oldest idle connection is still open")
	}

	// Two requests the handler holds: every connection is busy for its client (idle2 makes room
	// for the second).
	for busy := 0; busy < 2; {
		c := dial(t, addr)
		fmt.Fprint(c, "POST /busy HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
		answered := make(chan struct{})
		go func() { _, _ = c.Read(make([]byte, 1)); close(answered) }()
		select {
		case <-entered:
			busy++
		case <-answered: // refused: the first client's connection had not left the cap yet
			time.Sleep(10 * time.Millisecond)
		}
	}
	_ = idle2
	r, err := hc.Post("http://"+addr+"/", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("a new client while every connection is busy: %v, want a 503", err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "2 connections") {
		t.Errorf("a new client while every connection is busy: %s %q, want 503 naming the cap", r.Status, b)
	}
	close(release)
}

// Reference: I-NET-3 — a response the client stops
// reading fails the handler's writes, and a client that leaves cancels the handler's context.
func TestWorkEndsWhenTheClientLeaves(t *testing.T) {
	writeErr := make(chan error, 1)
	ctxErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if r.URL.Path == "/wait" {
			<-r.Context().Done()
			ctxErr <- r.Context().Err()
			return
		}
		chunk := make([]byte, 64<<10)
		for range 4096 { // 256 MiB: far more than the socket buffers hold
			if _, err := w.Write(chunk); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- nil
	})
	addr := start(t, h, Limits{WriteProgress: 200 * time.Millisecond})

	c := dial(t, addr)
	fmt.Fprint(c, "POST /big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
	if err := <-writeErr; err == nil {
		t.Errorf("a client that stopped reading: the handler wrote 256 MiB, want a write error")
	}

	c = dial(t, addr)
	fmt.Fprint(c, "POST /wait HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	c.Close()
	if err := <-ctxErr; !errors.Is(err, context.Canceled) {
		t.Errorf("a client that left: the handler's context = %v, want canceled", err)
	}
}
