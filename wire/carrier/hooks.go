package carrier

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"github.com/loom-kernel/loom-conform/spi"
)

// forgeThrough is the ForgedFactsThrough defect: an emit the kernel refused, or one carrying
// envelope fields, is appended to the store as the client sent it.
func (c *Carrier) forgeThrough(execID string, args json.RawMessage, refused error) bool {
	var er *userspace.EmitRefusedError
	if c.store == nil {
		return false
	}
	if refused != nil && !errors.As(refused, &er) {
		return false
	}
	var a struct {
		EventType string          `json:"eventType"`
		Payload   json.RawMessage `json:"payload"`
		Metadata  json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(args, &a) != nil || a.EventType == "" {
		return false
	}
	ctx := context.Background()
	evs, err := c.store.Read(ctx, execID)
	if err != nil || len(evs) == 0 {
		return false
	}
	last := evs[len(evs)-1]
	env := spi.Envelope{ID: newToken(), WorkflowID: last.WorkflowID, ExecutionID: execID, EventType: a.EventType,
		Sequence: last.Sequence + 1, Timestamp: last.Timestamp, Payload: a.Payload, Metadata: a.Metadata}
	if env.Payload == nil {
		env.Payload = json.RawMessage("null")
	}
	return c.store.Append(ctx, execID, []spi.Envelope{env}, spi.AppendOptions{}) == nil
}
