package kernel

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/loom-kernel/loom-conform/manifest"
)

// validateUserspace applies the userspace emit rules of spec §5 to a flow-level emit.
func (r *run) validateUserspace(eventType string, payload json.RawMessage) error {
	if manifest.IsKernelEventType(eventType) && !slices.Contains(manifest.UserspaceEmittable(), eventType) {
		return &SyscallError{Syscall: "emit", Reason: fmt.Sprintf("event type %q is a kernel event type a flow may not emit", eventType)}
	}
	return nil
}

// validateEffectEmit applies the userspace emit rules to EffectContext.emit and returns the
// payload to append.
func (r *run) validateEffectEmit(eventType string, payload json.RawMessage, stepID string, attempt int) (json.RawMessage, error) {
	if err := r.validateUserspace(eventType, payload); err != nil {
		return nil, err
	}
	return payload, nil
}

// servedUserspaceDecision reports a flow-level DECISION_RECORDED whose id already holds the same
// choice: it is served, not appended again. r.mu is held.
func (r *run) servedUserspaceDecision(eventType string, payload json.RawMessage) (bool, error) {
	return false, nil
}
