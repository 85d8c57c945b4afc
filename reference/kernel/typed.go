package kernel

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxTypedPayload is the cap on a typed failure payload's canonical JSON (spec §4.1: 16 KiB).
const MaxTypedPayload = 16 * 1024

// TypedFailure is a failure on a declared error channel (spec §4.1). An effect returns one (Fail);
// the flow receives one, live and on replay, with the recorded payload. It is a userspace value:
// there is no fail syscall.
type TypedFailure struct {
	Channel string
	// Payload is the failure's data. On the way in any JSON-able value; on the way out (what the
	// flow sees) the recorded JSON text.
	Payload any
}

// Fail returns a *TypedFailure on channel with payload.
func Fail(channel string, payload any) error {
	return &TypedFailure{Channel: channel, Payload: payload}
}

func (e *TypedFailure) Error() string { return fmt.Sprintf("typed failure on channel %q", e.Channel) }

// RawPayload returns the payload as a JSON text (nil if it has no JSON form).
func (e *TypedFailure) RawPayload() json.RawMessage {
	raw, err := rawJSON(e.Payload)
	if err != nil {
		return nil
	}
	return raw
}

// checkTyped validates a typed failure against the channel map: declared, JSON, at most 16 KiB,
// schema-valid. It returns the canonical payload, or the reason it degrades (spec §4.1).
func (r *run) checkTyped(tf *TypedFailure, errMap map[string]PayloadSchema) (json.RawMessage, string) {
	schema, ok := errMap[tf.Channel]
	if !ok || tf.Channel == "" || isReserved(tf.Channel) {
		return nil, "undeclared-channel"
	}
	raw, err := rawJSON(tf.Payload)
	if err != nil {
		return nil, "invalid-payload"
	}
	if limit := MaxTypedPayload; len(raw) > limit && !(r.rt.cfg.Hooks.TypedCap32K && len(raw) <= 2*limit) {
		return nil, "over-cap"
	}
	if schema != nil && !r.rt.cfg.Hooks.TypedSkipSchema {
		if err := schema(raw); err != nil {
			return nil, "invalid-payload"
		}
	}
	return raw, ""
}

func quotaFromPayload(stepID string, payload json.RawMessage) *QuotaExceededError {
	var p struct {
		Dimension string  `json:"dimension"`
		Limit     float64 `json:"limit"`
		Used      float64 `json:"used"`
	}
	_ = json.Unmarshal(payload, &p)
	return &QuotaExceededError{StepID: stepID, Dimension: p.Dimension, Limit: p.Limit, Used: p.Used}
}

func itoa(n int) string { return strconv.Itoa(n) }
