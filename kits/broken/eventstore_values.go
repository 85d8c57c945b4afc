package broken

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- lost number precision: payloads pass through float64.
type lossyNumbers struct{ es }

func (s lossyNumbers) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		var v any
		if json.Unmarshal(e.Payload, &v) == nil {
			e.Payload, _ = json.Marshal(v)
		}
		out[i] = e
	}
	return s.es.Append(ctx, id, out, opts)
}

// --- dropped metadata.
type dropMetadata struct{ es }

func (s dropMetadata) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Metadata = nil
		out[i] = e
	}
	return s.es.Append(ctx, id, out, opts)
}

// --- payload and metadata live in VARCHAR(1024) columns.
type smallPayloads struct{ es }

func (s smallPayloads) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	for _, e := range events {
		if len(e.Payload) > 1024 || len(e.Metadata) > 1024 {
			return fmt.Errorf("backend: value too long for type character varying(1024)")
		}
	}
	return s.es.Append(ctx, id, events, opts)
}
