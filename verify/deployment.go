package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxDeploymentBytes bounds a deployment file.
const MaxDeploymentBytes = 1 << 20

// DeploymentSpec is a deployment as data (docs/deployment.md): the flows it deploys, where each is
// pinned, whether it makes timed suspends, and whether the runtime wires a TimerStore.
type DeploymentSpec struct {
	// Targets, when set, are the registered targets to check against when no dispatcher is asked.
	Targets []string `json:"targets,omitempty"`
	// TimerStore says the runtimes of this deployment wire a TimerStore.
	TimerStore bool `json:"timerStore"`
	// Flows are the deployed flows.
	Flows []FlowSpec `json:"flows"`
}

// FlowSpec is one deployed flow.
type FlowSpec struct {
	ID string `json:"id"`
	// ComputeTarget pins the flow to a dispatcher target; "" leaves it unpinned.
	ComputeTarget string `json:"computeTarget,omitempty"`
	// TimedSuspends names the flow's timed suspend points (sleep, sleepUntil, suspend with a
	// timeout), e.g. ["sleep", "approval (timeout 1h)"]; empty when it makes none.
	TimedSuspends []string `json:"timedSuspends,omitempty"`
}

// ParseDeployment decodes a deployment file strictly: one JSON object, known fields only, every
// flow with a unique non-empty id. Errors name the file and the field.
func ParseDeployment(name string, data []byte) (DeploymentSpec, error) {
	var d DeploymentSpec
	if len(data) > MaxDeploymentBytes {
		return d, fmt.Errorf("%s: %d bytes, at most %d", name, len(data), MaxDeploymentBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return d, fmt.Errorf("%s: trailing data after the deployment object", name)
	}
	if d.Flows == nil {
		return d, fmt.Errorf("%s: field flows: missing", name)
	}
	seen := map[string]bool{}
	for i, f := range d.Flows {
		switch {
		case f.ID == "":
			return d, fmt.Errorf("%s: flows[%d].id: empty", name, i)
		case seen[f.ID]:
			return d, fmt.Errorf("%s: flows[%d].id: %q repeats an earlier flow", name, i, f.ID)
		}
		seen[f.ID] = true
	}
	for i, t := range d.Targets {
		if t == "" {
			return d, fmt.Errorf("%s: targets[%d]: empty", name, i)
		}
	}
	return d, nil
}
