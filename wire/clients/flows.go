package clients

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed flows.json
var flowsJSON []byte

// FlowsJSON returns the flow set as stored.
func FlowsJSON() []byte { return append([]byte(nil), flowsJSON...) }

// Flow is one flow of the fixed set: the syscalls a driver makes in order.
type Flow struct {
	ID     string          `json:"id"`
	Input  json.RawMessage `json:"input"`
	Calls  []Call          `json:"calls"`
	Resume *Resume         `json:"resume,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Call is one syscall of a flow; Expect, when set, is the error it must be answered with.
type Call struct {
	Syscall string          `json:"syscall"`
	Args    json.RawMessage `json:"args"`
	Expect  *Expect         `json:"expect,omitempty"`
}

// Expect is an expected error answer: its code and, for a typed failure, its channel.
type Expect struct {
	Code    int    `json:"code"`
	Channel string `json:"channel,omitempty"`
}

// Resume answers the park of a flow.
type Resume struct {
	EventType string          `json:"eventType"`
	Payload   json.RawMessage `json:"payload"`
}

// Flows parses the fixed flow set.
func Flows() ([]Flow, error) {
	var f struct {
		Flows []Flow `json:"flows"`
	}
	if err := json.Unmarshal(flowsJSON, &f); err != nil {
		return nil, fmt.Errorf("wire/clients/flows.json: %w", err)
	}
	return f.Flows, nil
}
