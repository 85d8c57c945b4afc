package kernelkit

import (
	"context"
	"encoding/json"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// recordingStore is the store a broken kernel records through: rewrite changes each envelope on
// its way in (the kernel answered as it decided; the log says otherwise).
type recordingStore struct {
	spi.EventStore
	rewrite func(spi.Envelope) spi.Envelope
}

func (s recordingStore) Append(ctx context.Context, id string, evs []spi.Envelope, opts spi.AppendOptions) error {
	out := make([]spi.Envelope, len(evs))
	for i, e := range evs {
		out[i] = s.rewrite(e)
	}
	return s.EventStore.Append(ctx, id, out, opts)
}

// timeoutsRecordedTyped records the untyped STEP_FAILED of a step that outlived its timeout as a
// typed failure on the channel timeout, with the error as its payload: the timeout-recorded-typed
// defect (a re-run would serve what the spec re-runs).
func timeoutsRecordedTyped(store spi.EventStore) spi.EventStore {
	return recordingStore{EventStore: store, rewrite: func(e spi.Envelope) spi.Envelope {
		if e.EventType != manifest.StepFailed {
			return e
		}
		var p map[string]json.RawMessage
		var failure struct {
			Timeout bool `json:"timeout"`
		}
		if json.Unmarshal(e.Payload, &p) != nil || json.Unmarshal(p["error"], &failure) != nil || !failure.Timeout || p["channel"] != nil {
			return e
		}
		p["channel"], p["payload"] = json.RawMessage(`"timeout"`), p["error"]
		e.Payload, _ = json.Marshal(p)
		return e
	}}
}
