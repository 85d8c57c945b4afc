package certify

import (
	"context"
	"errors"
	"strings"

	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// StoreTarget certifies Go values implementing the seams (spi.EventStore, spi.SnapshotStore, …):
// like --builtin, they are served by a bridge in this process on a loopback port and certified
// through the wire, so a Go author gets the report, certificate, JSON, JUnit, HTML and badge the
// command line gives (I-CERT-62). Stores.Implementation names them on the certificate.
type StoreTarget struct {
	Stores bridge.Stores
}

// Describe names the Go values by their implementation name and version. There is no command-line
// flag that selects them: reproducing lines name the Go call instead (RunStore).
func (t StoreTarget) Describe() Identity {
	name := strings.TrimSpace(t.Stores.Implementation.Name + " " + t.Stores.Implementation.Version)
	if name == "" {
		name = "Go stores"
	}
	return Identity{Kind: GoKind, Spec: name}
}

// GoKind is the Identity.Kind of a StoreTarget.
const GoKind = "go"

// Start serves the stores; Stop stops serving them (closing the stores is the caller's).
func (t StoreTarget) Start(ctx context.Context) (*Running, error) {
	if t.Stores.EventStore == nil && t.Stores.SnapshotStore == nil && t.Stores.ArchiveStore == nil && t.Stores.BranchRegistry == nil &&
		t.Stores.ContentStore == nil && t.Stores.DurableStateStore == nil && t.Stores.ReadModelStore == nil && t.Stores.Dispatcher == nil {
		return nil, errors.New("certify.StoreTarget: no store to certify (every seam of Stores is nil)")
	}
	return serveInProcess(t.Stores, t.Describe(), func() {}, nil)
}

// serveInProcess serves stores on a loopback port for a run; closeStores runs when it stops.
func serveInProcess(stores bridge.Stores, id Identity, closeStores func(), alive func(context.Context) error) (*Running, error) {
	srv, err := bridge.NewServer(stores, bridge.ServerOptions{})
	if err != nil {
		closeStores()
		return nil, err
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		closeStores()
		return nil, err
	}
	id.URL = url
	stopped := false
	return &Running{URL: url, Identity: id, Alive: alive, Stop: func(context.Context) error {
		if !stopped {
			stopped = true
			stop()
			closeStores()
		}
		return nil
	}}, nil
}

// RunStore certifies Go values: Run against a StoreTarget. cfg.Kinds picks the seams to judge
// (Kinds() for every store seam, KindDispatcher for the dispatcher); the report is the one
// `loom-conform certify` gives and every Write* renders it.
func RunStore(ctx context.Context, stores bridge.Stores, cfg Config) (*Report, error) {
	return Run(ctx, StoreTarget{Stores: stores}, cfg)
}
