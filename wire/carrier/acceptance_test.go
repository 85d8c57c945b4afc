package carrier

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// wireEqualsInProcess drives every case over the wire on one deterministic kernel (Wave 2 on) and
// holds each run byte-identical (log and folded state, and those of the executions its drive
// actions drove) to the in-process run of the same script.
func wireEqualsInProcess(t *testing.T, prefix string, cases []clients.Case) {
	t.Helper()
	want := inProcess(t, prefix, cases)
	cl, _, _, _ := served(t, Options{Features: Wave2()})
	for _, k := range cases {
		o := DriveOptions{Crashes: want[k.Name].Crashes, Clock: slices.Contains(clients.Extension(k.Script, k.Driver), MethodConformanceClock)}
		got, err := DriveWireWith(testCtx(t), cl, prefix+k.Name, k.Script, k.Driver, o)
		if err != nil {
			t.Errorf("wire/acceptance [A26.acceptance]: DriveWire(%s) = %v, want the script driven and replayed", k.Name, err)
			continue
		}
		w := want[k.Name]
		if len(got.Driven) != len(w.Driven) {
			t.Errorf("wire/acceptance [A26.acceptance, I-WIRE-21]: DriveWire(%s) drove %d executions, want %d", k.Name, len(got.Driven), len(w.Driven))
			continue
		}
		for i, wr := range append([]Run{w}, w.Driven...) {
			sameRun(t, k.Name, wr, append([]Run{got}, got.Driven...)[i])
		}
	}
}

// sameRun holds one execution of a wire run byte-identical to the in-process one.
func sameRun(t *testing.T, name string, want, got Run) {
	t.Helper()
	if got.State != want.State {
		t.Errorf("wire/acceptance [A26.acceptance]: state(%s %s) differs (-want +got):\n%s", name, got.ExecutionID, cmp.Diff(want.State, got.State))
	}
	gl, _ := json.Marshal(got.Log)
	wl, _ := json.Marshal(want.Log)
	if string(gl) != string(wl) {
		d := goldens.DiffRuns(want.Log, got.Log, nil, nil, goldens.DiffOptions{Strict: true})
		t.Errorf("wire/acceptance [A26.acceptance]: log(%s %s) differs: %v", name, got.ExecutionID, d)
	}
}

// Reference: ADR 0026 acceptance — a client drives start, suspend, resume and replay over the
// wire and the fold is byte-identical to an in-process run of the same flow script.
func TestWireRunEqualsInProcess(t *testing.T) {
	cases, err := clients.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("wire/clients/scripts is empty")
	}
	wireEqualsInProcess(t, "wire-", cases)
}

// Reference: ADR 0026 acceptance, I-WIRE-10, I-WIRE-24 — every golden flow script the wire can
// express, with the conformance extension where its driver needs it, driven over the wire, is
// byte-identical to its in-process run.
func TestWireGoldensEqualInProcess(t *testing.T) {
	cases, not, err := clients.Goldens(true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden is drivable over the wire")
	}
	t.Logf("%d goldens over the wire, %d not expressible", len(cases), len(not))
	wireEqualsInProcess(t, "golden-", cases)
}
