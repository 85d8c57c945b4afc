package kernel

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/spi"
)

// Result is what one run (Start, Resume, ResumeAs, Recover, Drive) left behind.
type Result struct {
	ExecutionID string
	// Status is the execution status after the run (fold statuses: running, suspended,
	// completed, failed, cancelled, continued).
	Status string
	// Output / Error are the flow's return, when it completed / failed in this run.
	Output json.RawMessage
	Error  json.RawMessage
	// SuspendedOn is the gate the execution parked on, when it parked.
	SuspendedOn string
	// ContinuedTo is the new execution's id after continueAsNew.
	ContinuedTo string
	// Appended is every envelope this call appended, in order.
	Appended []spi.Envelope
	// ReadOnly is true when the run replayed a parked or terminal execution without writing.
	ReadOnly bool
}
