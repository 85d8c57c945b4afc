package bridge

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve answers the bridge protocol on ln until ctx is done, then shuts down (in-flight calls get
// up to five seconds). It returns nil after a shutdown caused by ctx.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// Start serves h on a new listener at addr ("127.0.0.1:0" for any free loopback port) in the
// background and returns the bridge URL and a stop function that shuts it down and waits.
func Start(addr string, h http.Handler) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(ctx, ln, h)
	}()
	return "http://" + ln.Addr().String() + "/", func() { cancel(); <-done }, nil
}
