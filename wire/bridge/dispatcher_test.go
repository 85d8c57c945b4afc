package bridge_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	dispmem "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

func startDispatcher() (*bridge.Client, func(), error) {
	srv, err := bridge.NewServer(bridge.Stores{
		Implementation: bridge.Implementation{Name: "memory dispatcher", Version: "test"},
		Dispatcher:     dispmem.New(dispmem.Config{Targets: []string{"cpu", "gpu"}}),
	}, bridge.ServerOptions{})
	if err != nil {
		return nil, nil, err
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		return nil, nil, err
	}
	c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, func() { c.Close(); stop() }, nil
}

// Reference: spec §6, §7 — every ExecutionDispatcher check passes over the wire exactly as in
// process, and the typed refusals (unknown target, lease lost) cross it as themselves.
func TestDispatcherKitOverBridge(t *testing.T) {
	kits.ExecutionDispatcher(t, func(ctx context.Context) (spi.ExecutionDispatcher, func(), error) {
		c, stop, err := startDispatcher()
		if err != nil {
			return nil, nil, err
		}
		return c.Dispatcher(), stop, nil
	})
	c, stop, err := startDispatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	err = c.Dispatcher().Dispatch(context.Background(), spi.ExecutionPackage{ExecutionID: "x", FlowID: "f", Target: "tpu"})
	var ute *spi.UnknownTargetError
	if !errors.As(err, &ute) || ute.Target != "tpu" || len(ute.Known) != 2 {
		t.Fatalf("Dispatch(target tpu) over the bridge = %v, want an UnknownTargetError naming tpu and the two known targets", err)
	}
	if c.EventStore() != nil {
		t.Fatal("a dispatcher-only bridge serves an EventStore")
	}
}
