package carrier

import (
	"io"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Mount serves a carrier on rt over loopback HTTP with no client attached, and returns what stops
// it: the shape of goldens.Variant.Mount, so the golden corpus re-runs with the wire ABI mounted
// and unwired (G2: the logs must stay byte-identical).
func Mount(rt *kernel.Runtime) (io.Closer, error) { return MountWith(Options{})(rt) }

// MountWith is Mount with the carrier's options (a broken carrier's hooks, for one).
func MountWith(opts Options) func(*kernel.Runtime) (io.Closer, error) {
	return func(rt *kernel.Runtime) (io.Closer, error) {
		c, err := New(rt, nil, opts)
		if err != nil {
			return nil, err
		}
		_, stop, err := bridge.Start("127.0.0.1:0", c)
		if err != nil {
			return nil, err
		}
		return closer(stop), nil
	}
}

type closer func()

func (f closer) Close() error { f(); return nil }
