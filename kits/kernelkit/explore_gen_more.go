package kernelkit

import (
	"encoding/json"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
)

// What kernel/explore's generator draws from its second source (xgen.x): refused resumes at a
// human step's park, and resumeAs onto an ended execution.

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
		target := map[string]any{"format": flowscript.Format, "id": "explore-after", "body": []flowscript.Stmt{g.plain(1), g.emit()}}
		flow, _ := json.Marshal(target)
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resumeAs", Flow: flow, Payload: raw(g.value())}))
	}
}
