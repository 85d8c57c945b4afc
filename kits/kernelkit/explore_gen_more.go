package kernelkit

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
)

// What kernel/explore's generator draws from its second source (xgen.x): refused resumes at a
// human step's park, resumeAs onto an ended execution, and a start input naming a key twice.

// startInput is the start action's input: a corpus value, or sometimes (always in the rounds that
// set dupKey) an object naming its key twice with two values (explore_json.go).
// A crashed start is not one: a refused start leaves nothing to recover, so a script with a crash
// keeps a plain input.
func (g *xgen) startInput(crash bool) json.RawMessage {
	v := raw(g.value())
	if !crash && (g.dupKey || g.x.Intn(5) == 0) {
		return dupKeyInput(g.values[g.x.Intn(len(g.values))], string(v))
	}
	return v
}

// wrongGate adds, often, before the resume that answers the human step id's park, a resume naming
// another event type: refused, appending nothing (spec §5: a resume names the gate it answers).
func (g *xgen) wrongGate(id string) {
	if g.x.Intn(2) == 0 {
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resume", EventType: id + "!", Payload: raw(g.value())}))
	}
}

// ending adds, after the run's end, sometimes a resumeAs onto the ended execution (I-WIRE-29: the
// way out of a completed, failed or cancelled execution), which runs another flow.
func (g *xgen) ending() {
	if g.x.Intn(3) == 0 {
		target := map[string]any{"format": flowscript.Format, "id": "explore-after", "body": []flowscript.Stmt{
			// a step that makes no choice: the target flow's statements are not aligned for choices
			{Op: "execute", ID: g.name(), Tool: "echo", Input: raw(g.value())}, g.emit()}}
		flow, _ := json.Marshal(target)
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resumeAs", Flow: flow, Payload: raw(g.value())}))
	}
}
