package bridge

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/loom-kernel/loom-conform/internal/safehttp"
)

// Limits bound what clients may hold of a served bridge or kernel: the connection cap and the
// read-header, body-progress, write-progress and idle timeouts (docs/bridge.md, "Running it
// safely"). Zero values take the defaults.
type Limits = safehttp.Limits

// Serve answers the bridge protocol (or any handler of the project: the kernel wire too) on ln
// until ctx is done, then shuts down (in-flight calls get up to five seconds). It returns nil
// after a shutdown caused by ctx. The handler decides who may call (ServerOptions.Token,
// AllowedHosts); Serve bounds how long and how many.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, l Limits) error {
	return safehttp.Serve(ctx, ln, h, l)
}

// Start serves h on a new loopback listener at addr ("127.0.0.1:0" for any free port) in the
// background and returns the bridge URL and a stop function that shuts it down and waits. It
// refuses an address beyond loopback: a server reachable from the network is started with Serve
// after safehttp's CheckListen (serve-store, serve-kernel).
func Start(addr string, h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	if !safehttp.Loopback(ln.Addr()) {
		ln.Close()
		return "", nil, fmt.Errorf("bridge.Start serves loopback only, not %s", ln.Addr())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, ln, h, Limits{})
	}()
	return "http://" + ln.Addr().String() + "/", func() { cancel(); <-done }, nil
}
