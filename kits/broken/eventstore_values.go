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

// --- copyPrefix re-encodes every member through another JSON library (empty arrays as objects,
// numbers printed with 14 digits).
type copyReencodes struct{ es }

func (s copyReencodes) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	got, err := s.es.Read(ctx, source)
	if err != nil {
		return err
	}
	if tgt, err := s.es.Read(ctx, target); err != nil || len(tgt) > 0 || len(got) == 0 || through < got[0].Sequence || through > lastSeq(got) {
		return s.es.CopyPrefix(ctx, source, target, through) // the store's own refusals
	}
	var out []spi.Envelope
	for _, e := range got {
		if e.Sequence > through {
			break
		}
		e.ExecutionID = target
		e.Payload, e.Metadata = reencodeLuaStyle(e.Payload), reencodeLuaStyle(e.Metadata)
		out = append(out, e)
	}
	return s.es.Append(ctx, target, out, spi.AppendOptions{})
}

// --- integers are read into int64: one beyond int64, which a double holds, wraps around.
type int64Integers struct{ es }

func (s int64Integers) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.Payload, e.Metadata = wrapInt64(e.Payload), wrapInt64(e.Metadata)
		out[i] = e
	}
	return s.es.Append(ctx, id, out, opts)
}
