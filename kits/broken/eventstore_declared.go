package broken

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- declares every EventStore method it has and answers unsupported to all of them.
type unsupportedEverything struct{}

func (unsupportedEverything) Append(context.Context, string, []spi.Envelope, spi.AppendOptions) error {
	return fmt.Errorf("backend: %w", spi.ErrUnsupported)
}

func (unsupportedEverything) Read(context.Context, string) ([]spi.Envelope, error) {
	return nil, fmt.Errorf("backend: %w", spi.ErrUnsupported)
}

func (unsupportedEverything) EventStoreSpiVersion() string { return "2.6.0" }

// --- a fenced append is written unfenced and then reported unsupported.
type fenceSaysUnsupported struct{ es }

func (s fenceSaysUnsupported) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if opts.Fence != 0 {
		_ = s.es.Append(ctx, id, events, spi.AppendOptions{})
		return fmt.Errorf("fenced append: %w", spi.ErrUnsupported)
	}
	return s.es.Append(ctx, id, events, opts)
}

// --- a version claim from a future major.
type futureClaim struct{ es }

func (s futureClaim) EventStoreSpiVersion() string { return "3.0.0" }
