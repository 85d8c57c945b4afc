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

// --- read range: a negative from reads from sequence 0 (the set from <= sequence < to) instead
// of being refused; a choice the spec leaves open (I-STORE-66).
type negativeFromReadsAll struct{ es }

func (s negativeFromReadsAll) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	return s.es.ReadRange(ctx, id, max(from, 0), to)
}
