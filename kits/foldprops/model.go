package foldprops

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// ModelFold is a deliberately simple fold of the core subset (GenOptions.CoreOnly) at the current
// schema, written straight from spec §3/§4 over generic maps, as the differential property's
// oracle (DESIGN §10: raft's quorum quick-check against a simple model). It returns the state as
// encoding/json would decode the reference fold's canonical output.
func ModelFold(events []spi.Envelope) (map[string]any, error) {
	frames := map[string]any{}
	vars := map[string]any{}
	st := map[string]any{"status": "pending", "frames": frames, "variables": vars, "sequence": -1.0, "startedAt": nil, "updatedAt": nil}
	endPark := func() {
		delete(vars, "_suspendedOn")
		delete(vars, "_failedWhileParked")
	}
	setOrDelete := func(m map[string]any, key string, v any, ok bool) {
		if ok {
			m[key] = v
		} else {
			delete(m, key)
		}
	}
	for i, e := range events {
		var p any
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			return nil, fmt.Errorf("model: envelope %d: payload: %w", i, err)
		}
		var md map[string]any
		if len(e.Metadata) > 0 {
			json.Unmarshal(e.Metadata, &md) //nolint:errcheck // a non-object reads as none
		}
		pm, _ := p.(map[string]any)
		stamp, stamped := md["flowEmit"].(string)
		rejected := stamped && stamp == "__proto__"
		stepID, hasStep := pm["stepId"].(string)
		if hasStep && stepID == "__proto__" && len(e.EventType) > 5 && e.EventType[:5] == "STEP_" {
			rejected = true
		}
		if id, ok := pm["id"].(string); ok && id == "__proto__" && e.EventType == "DECISION_RECORDED" {
			rejected = true
		}
		if !rejected {
			switch e.EventType {
			case "EXECUTION_STARTED":
				st["status"], st["startedAt"] = "running", float64(e.Timestamp)
				in, ok := pm["input"]
				setOrDelete(vars, "_input", in, ok)
			case "EXECUTION_SUSPENDED":
				so := map[string]any{}
				for _, k := range []string{"on", "timeout", "wakeAt", "correlationKey", "condition"} {
					if v, ok := pm[k]; ok {
						so[k] = v
					}
				}
				st["status"] = "suspended"
				vars["_suspendedOn"] = so
				delete(vars, "_failedWhileParked")
			case "EXECUTION_RESUMED":
				so, _ := vars["_suspendedOn"].(map[string]any)
				gate, _ := so["on"].(string)
				_, flagged := vars["_failedWhileParked"]
				answers := st["status"] == "suspended" && gate != "__loom_indoubt__" && gate != "__loom_diverged__" && !flagged
				if p != nil || answers {
					l, _ := vars["_resumePayloads"].([]any)
					vars["_resumePayloads"] = append(l, p)
				}
				st["status"] = "running"
				endPark()
			case "EXECUTION_COMPLETED":
				st["status"] = "completed"
				v, ok := pm["output"]
				setOrDelete(vars, "_output", v, ok)
				endPark()
			case "EXECUTION_FAILED":
				st["status"] = "failed"
				v, ok := pm["error"]
				setOrDelete(vars, "_error", v, ok)
				endPark()
			case "EXECUTION_CANCELLED":
				st["status"] = "cancelled"
				endPark()
			case "STEP_STARTED":
				if hasStep {
					att, ok := pm["attempt"].(float64)
					if !ok {
						att = 1
					}
					f := map[string]any{"stepId": stepID, "status": "running", "attempt": att}
					if in, ok := pm["input"]; ok {
						f["input"] = in
					}
					frames[stepID] = f
				}
			case "STEP_COMPLETED", "STEP_FAILED":
				if !hasStep {
					break
				}
				f, _ := frames[stepID].(map[string]any)
				if f == nil {
					f = map[string]any{"stepId": stepID, "attempt": 1.0}
				}
				g := map[string]any{"stepId": stepID, "attempt": f["attempt"]}
				if e.EventType == "STEP_COMPLETED" {
					g["status"] = "completed"
					if v, ok := pm["output"]; ok {
						g["output"] = v
					}
				} else {
					g["status"] = "failed"
					if v, ok := pm["error"]; ok {
						g["error"] = v
					}
					if ch, ok := pm["channel"].(string); ok {
						g["errorChannel"] = ch
						if v, ok := pm["payload"]; ok {
							g["errorPayload"] = v
						}
					}
					if st["status"] == "suspended" {
						vars["_failedWhileParked"] = true
					}
				}
				frames[stepID] = g
			case "DECISION_RECORDED":
				id, ok := pm["id"].(string)
				if !ok {
					break
				}
				ds, _ := vars["_decisions"].(map[string]any)
				if ds == nil {
					ds = map[string]any{}
					vars["_decisions"] = ds
				}
				d := map[string]any{}
				for _, k := range []string{"choice", "context", "policy"} {
					if v, ok := pm[k]; ok {
						d[k] = v
					}
				}
				if prev, seen := ds[id].(map[string]any); seen {
					if s, ok := prev["seq"]; ok {
						d["seq"] = s
					}
				} else {
					d["seq"] = float64(e.Sequence)
				}
				ds[id] = d
			}
			if stamped {
				fe, _ := vars["_flowEmits"].(map[string]any)
				if fe == nil {
					fe = map[string]any{}
					vars["_flowEmits"] = fe
				}
				n, _ := fe[stamp].(float64)
				fe[stamp] = n + 1
			}
		}
		st["sequence"], st["updatedAt"] = float64(e.Sequence), float64(e.Timestamp)
	}
	return st, nil
}
