package certify

import (
	"context"

	"github.com/loom-kernel/loom-conform/internal/redact"
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

// URLEnv is the variable a reproducing command names for a --url holding userinfo (a password,
// or a token as the user name), which no output shows: `--url "$LOOM_CONFORM_URL"`.
const URLEnv = "LOOM_CONFORM_URL"

// URLTarget is a bridge that is already running.
type URLTarget struct{ URL string }

// Describe shows the URL with the secret of its userinfo masked; its reproducing flag names
// $LOOM_CONFORM_URL for such a URL, since a masked one would not re-run.
func (t URLTarget) Describe() Identity {
	shown := redact.URL(t.URL)
	flag := "--url " + shq.Quote(t.URL)
	if shown != t.URL {
		flag = `--url "$` + URLEnv + `"`
	}
	return Identity{Kind: "url", Spec: shown, Flag: flag, URL: shown}
}

func (t URLTarget) Start(ctx context.Context) (*Running, error) {
	return &Running{URL: t.URL, Identity: t.Describe(), Stop: func(context.Context) error { return nil }}, nil
}
