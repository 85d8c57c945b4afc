package broken

import (
	"context"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- read range: inclusive upper bound.
type offByOneRange struct{ es }

func (s offByOneRange) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if to >= 0 {
		to++
	}
	return s.es.ReadRange(ctx, id, from, to)
}
