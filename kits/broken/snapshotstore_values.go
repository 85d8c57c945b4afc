package broken

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- state numbers pass through float64.
type lossyState struct{ ss }

func (s lossyState) Save(ctx context.Context, sn spi.Snapshot) error {
	var v any
	if json.Unmarshal(sn.State, &v) == nil {
		sn.State, _ = json.Marshal(v)
	}
	return s.ss.Save(ctx, sn)
}

type jsonbLike struct{ reorder }

func (s jsonbLike) Save(ctx context.Context, sn spi.Snapshot) error {
	if strings.Contains(string(sn.State), `\u0000`) {
		return errors.New(`ERROR: unsupported Unicode escape sequence (SQLSTATE 22P05)`)
	}
	return s.reorder.Save(ctx, sn)
}

type reorder struct{ ss }

func (s reorder) Save(ctx context.Context, sn spi.Snapshot) error {
	if b, err := reverseKeys(sn.State); err == nil {
		sn.State = b
	}
	return s.ss.Save(ctx, sn)
}

// --- the state is re-encoded through another JSON library on save (empty arrays as objects,
// numbers printed with 14 digits).
type stateReencoded struct{ ss }

func (s stateReencoded) Save(ctx context.Context, sn spi.Snapshot) error {
	sn.State = reencodeLuaStyle(sn.State)
	return s.ss.Save(ctx, sn)
}
