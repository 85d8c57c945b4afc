package carrier

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// Reference: ADR 0026 acceptance — a client drives start, suspend, resume and replay over the
// wire and the fold is byte-identical to an in-process run of the same flow.
func TestWireRunEqualsInProcess(t *testing.T) {
	flows, err := clients.Flows()
	if err != nil {
		t.Fatal(err)
	}
	want := inProcess(t, flows)
	cl, _, _, _ := served(t, Options{})
	for _, f := range flows {
		got, err := DriveWire(testCtx(t), cl, "wire-"+f.ID, f)
		if err != nil {
			t.Fatalf("wire/acceptance [A26.acceptance]: DriveWire(%s) = %v", f.ID, err)
		}
		if got.State != want[f.ID].State {
			t.Errorf("wire/acceptance [A26.acceptance]: state(%s) differs (-want +got):\n%s", f.ID, cmp.Diff(want[f.ID].State, got.State))
		}
		gl, _ := json.Marshal(got.Log)
		wl, _ := json.Marshal(want[f.ID].Log)
		if string(gl) != string(wl) {
			t.Errorf("wire/acceptance [A26.acceptance]: log(%s) differs (-want +got):\n%s", f.ID, cmp.Diff(want[f.ID].Log, got.Log))
		}
	}
}
