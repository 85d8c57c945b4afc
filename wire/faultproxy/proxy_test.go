package faultproxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/wire/faultproxy"
)

// Cut breaks a request in flight; the proxy keeps forwarding new connections.
func TestCutBreaksInFlightOnly(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		_, _ = io.WriteString(w, "ok")
	}))
	defer up.Close()
	defer close(release)
	p, err := faultproxy.New(up.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{}}
	errc := make(chan error, 1)
	go func() {
		_, err := hc.Get(p.URL() + "slow")
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	p.Cut()
	if err := <-errc; err == nil {
		t.Errorf("GET /slow through a cut proxy = nil error, want the connection broken")
	}
	if p.Cuts() != 1 {
		t.Errorf("Cuts() = %d, want 1", p.Cuts())
	}
	resp, err := hc.Get(p.URL() + "fast")
	if err != nil {
		t.Fatalf("GET /fast after the cut = %v, want it forwarded", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" {
		t.Errorf("GET /fast = %q, want ok", b)
	}
}
