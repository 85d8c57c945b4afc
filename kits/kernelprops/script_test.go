package kernelprops

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// Reference: spec §3 (determinism), I-GOLDEN-1 — a generated program written as a flow script
// (loom-flowscript/1) decodes strictly, and the flow-script interpreter writes the same history as
// the kit's own interpreter: the same envelopes in the same order with the same payloads and
// stamps (STEP_STARTED compared without input and toolId, which the kit's inline effects do not
// have; envelope ids and timestamps are run-specific).
func TestProgramsAsFlowScripts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(10, false).Draw(t, "program")
		var kept Program
		for _, op := range p {
			if op.Kind != OpEmitNaN { // no JSON form: not writable as a flow script
				kept = append(kept, op)
			}
		}
		s, err := kept.Script("prog")
		if err != nil {
			t.Fatalf("kernelprops/flow-script: Script(%s) = %v", kept, err)
		}
		b, _ := json.Marshal(s)
		s, err = flowscript.Decode("program.json", b)
		if err != nil {
			t.Fatalf("kernelprops/flow-script: Decode(Script(%s)) = %v\n%s", kept, err, b)
		}
		kit, err := drive(context.Background(), Reference(), kept, Schedule{ChangeAt: -1})
		if err != nil {
			t.Fatalf("kernelprops/flow-script: drive(%s) = %v", kept, err)
		}
		d := &flowscript.Driver{Format: flowscript.DriverFormat, Execution: kit.ExecID, Clock: flowscript.DefaultClock,
			Actions: []flowscript.DriverAction{{Do: "start"}}}
		for _, g := range kept.Gates() {
			d.Actions = append(d.Actions, flowscript.DriverAction{Do: "resume", EventType: g, Payload: answer(g)})
		}
		run, err := flowscript.RunDriver(context.Background(), s, d, flowscript.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(history(kit.Log), history(run.Log)); diff != "" {
			t.Fatalf("kernelprops/flow-script [S3.determinism.enforced]: program %s\nscript %s\nkit log vs flow-script log (-kit +script):\n%s", kept, b, diff)
		}
	})
}

// history projects a log onto what both interpreters must agree on.
func history(evs []spi.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		p := e.Payload
		if e.EventType == "STEP_STARTED" {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(p, &m)
			delete(m, "input")
			delete(m, "toolId")
			p, _ = json.Marshal(m)
		}
		out[i] = e.WorkflowID + " " + e.EventType + " " + string(p) + " " + string(e.Metadata)
	}
	return out
}
