package kernelprops

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// Reference: spec §3 (determinism), I-GOLDEN-1 — a generated program is a flow script: its printed
// form (the one failure reports show) decodes strictly as loom-flowscript/2 into the same
// statements, and the goldens' driver runs it to the same history the kit's drive writes (the
// same envelopes in the same order with the same payloads and stamps; envelope ids and timestamps
// are run-specific), so a reported counterexample replays outside the kit.
func TestProgramsAsFlowScripts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProgram(10, false).Draw(t, "program")
		s, err := flowscript.Decode("program.json", []byte(p.String()))
		if err != nil {
			t.Fatalf("kernelprops/flow-script [I-GOLDEN-1]: Decode(%s) = %v", p, err)
		}
		if diff := cmp.Diff(p.Script("prog"), s); diff != "" {
			t.Fatalf("kernelprops/flow-script [I-GOLDEN-1]: Decode(String()) (-generated +decoded):\n%s", diff)
		}
		kit, err := drive(context.Background(), Reference(), p, Schedule{ChangeAt: -1})
		if err != nil {
			t.Fatalf("kernelprops/flow-script: drive(%s) = %v", p, err)
		}
		d := &flowscript.Driver{Format: flowscript.DriverFormat, Execution: kit.ExecID, Clock: flowscript.DefaultClock,
			Actions: []flowscript.DriverAction{{Do: "start"}}}
		for _, g := range p.Gates() {
			d.Actions = append(d.Actions, flowscript.DriverAction{Do: "resume", EventType: g, Payload: answer(g)})
		}
		run, err := flowscript.RunDriver(context.Background(), s, d, flowscript.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(history(kit.Log), history(run.Log)); diff != "" {
			t.Fatalf("kernelprops/flow-script [S3.determinism.enforced]: program %s\nkit log vs driver log (-kit +driver):\n%s", p, diff)
		}
	})
}

// history projects a log onto what two runs of one script must agree on.
func history(evs []spi.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.WorkflowID + " " + e.EventType + " " + string(e.Payload) + " " + string(e.Metadata)
	}
	return out
}
