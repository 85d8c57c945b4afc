package certify

import (
	"context"

	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/wire/target"
)

// Target is what certify runs against: something that starts (or finds) a store bridge. The
// target types live in wire/target, below certify, so adapters (wire/dockertestadapter) need not
// import certify.
type Target = target.Target

// Identity says what was certified; it goes into every report.
type Identity = target.Identity

// Running is a started bridge.
type Running = target.Running

// Pauser freezes and thaws a bridge (docker pause, SIGSTOP) for fault checks.
type Pauser = target.Pauser

// PauseWithRetry freezes a container, retrying a freeze the runtime could not complete (see
// target.PauseWithRetry).
func PauseWithRetry(ctx context.Context, pause, unpause func(context.Context) error) error {
	return target.PauseWithRetry(ctx, pause, unpause)
}

// URLTarget is a bridge that is already running.
type URLTarget struct{ URL string }

func (t URLTarget) Describe() Identity {
	return Identity{Kind: "url", Spec: t.URL, Flag: "--url " + shq.Quote(t.URL), URL: t.URL}
}

func (t URLTarget) Start(ctx context.Context) (*Running, error) {
	return &Running{URL: t.URL, Identity: t.Describe(), Stop: func(context.Context) error { return nil }}, nil
}
