package clients_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/internal/testenv"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// need finds the tools a client needs; under CI=true a missing one fails the test (it must run).
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		testenv.LookPath(t, tool, "install it (or run .ci/run) to run this acceptance client")
	}
}

type line struct {
	Flow        string         `json:"flow"`
	ExecutionID string         `json:"executionId"`
	Canonical   string         `json:"canonical"`
	Log         []spi.Envelope `json:"log"`
	Driven      []line         `json:"driven"` // kernel.py: the executions its drive actions drove
}

// clientToken is the bearer token the kernel of the client tests requires: the clients send the
// one LOOM_CONFORM_TOKEN gives them (I-NET-2).
const clientToken = "clients-test-token-0123456789"

// runClient serves the reference kernel (deterministic, Wave 2 on, with a bearer token) and runs the
// client command against it on the case directories.
func runClient(t *testing.T, name string, dirs []string, args ...string) []line {
	t.Helper()
	store := memory.NewEventStore()
	c, _, err := carrier.NewProfile(store, true, carrier.Options{Features: carrier.Wave2(), Token: clientToken})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	defer srv.Close()
	// A guard against a client that hangs, not a time limit on its work: the client runs until
	// shortly before the test binary's own deadline (go test -timeout), so a loaded machine
	// makes it slower, never wrong, and a hang still ends with the client's stderr.
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Hour)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append(append(args, srv.URL+"/"), dirs...)...)
	cmd.Env = append(os.Environ(), "LOOM_CONFORM_TOKEN="+clientToken)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s printed %q: %v", name, sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

// cases returns the wire's own scripts and the golden corpus's drivable ones (with their
// directories), or only those a client subset takes.
func cases(t *testing.T, keep func(clients.Case) bool) ([]clients.Case, []string) {
	t.Helper()
	own, err := clients.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	gs, _, err := clients.Goldens(false)
	if err != nil {
		t.Fatal(err)
	}
	var out []clients.Case
	var dirs []string
	for _, k := range own {
		if keep(k) {
			out, dirs = append(out, k), append(dirs, filepath.Join("scripts", k.Name))
		}
	}
	for _, k := range gs {
		if keep(k) {
			out, dirs = append(out, k), append(dirs, filepath.Join("..", "..", "goldens", "corpus", k.Name))
		}
	}
	return out, dirs
}

// compare holds the client's runs byte-identical (state) and value-identical (log, which passed
// through the client's JSON tools) to the same scripts run in process on the reference kernel,
// in the same order on one runtime (so the fixed clock and sequential ids line up).
func compare(t *testing.T, client string, cs []clients.Case, got []line) {
	t.Helper()
	if len(got) != len(cs) {
		t.Fatalf("wire/clients [A26.acceptance]: %s drove %d flow scripts, want %d", client, len(got), len(cs))
	}
	store := memory.NewEventStore()
	cfg := carrier.ProfileConfig(store, true, carrier.ProfileRings(), kernel.Hooks{})
	cfg.Features = carrier.Wave2()
	rt, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range cs {
		want, err := carrier.RunInProcess(context.Background(), rt, store, "wire-"+k.Name, k.Script, k.Driver)
		if err != nil {
			t.Fatal(err)
		}
		sameRun(t, client, k.Name, want, got[i])
		if client == "kernel.py" && len(got[i].Driven) != len(want.Driven) {
			t.Errorf("wire/clients [A26.acceptance, I-WIRE-21]: %s script %s: drove %d executions, want %d", client, k.Name, len(got[i].Driven), len(want.Driven))
			continue
		}
		for j := range got[i].Driven {
			sameRun(t, client, k.Name, want.Driven[j], got[i].Driven[j])
		}
	}
}

// sameRun holds one execution a client drove identical to the in-process one.
func sameRun(t *testing.T, client, name string, want carrier.Run, g line) {
	t.Helper()
	if g.Canonical != want.State {
		t.Errorf("wire/clients [A26.acceptance]: %s script %s %s: folded state differs from the in-process run (-want +got):\n%s", client, name, g.ExecutionID, cmp.Diff(want.State, g.Canonical))
	}
	if d := cmp.Diff(norm(want.Log), norm(g.Log)); d != "" {
		t.Errorf("wire/clients [A26.acceptance]: %s script %s %s: log differs from the in-process run (-want +got):\n%s", client, name, g.ExecutionID, d)
	}
}

func norm(evs []spi.Envelope) []any {
	b, _ := json.Marshal(evs)
	var v []any
	_ = json.Unmarshal(b, &v)
	return v
}

// Reference: ADR 0026 acceptance — a POSIX shell client using only curl and jq starts, suspends,
// resumes and replays executions of flow scripts (its subset: shellSubset); the fold is
// byte-identical to the in-process run.
func TestShellClient(t *testing.T) {
	need(t, "sh", "curl", "jq")
	cs, dirs := cases(t, func(k clients.Case) bool { return shellSubset(k) && shellGoldens[k.Name] })
	if len(cs) != len(shellGoldens) {
		t.Fatalf("kernel.sh drives %d of the %d flow scripts meant for it: one left the wire's expressible set or the shell subset", len(cs), len(shellGoldens))
	}
	compare(t, "kernel.sh", cs, runClient(t, "sh", dirs, filepath.Join(".", "kernel.sh")))
}

// Reference: ADR 0026 acceptance — the same with a Python client using only the standard library
// that interprets loom-flowscript/1 itself: every script the wire can express.
func TestPythonClient(t *testing.T) {
	need(t, "python3")
	cs, dirs := cases(t, func(clients.Case) bool { return true })
	compare(t, "kernel.py", cs, runClient(t, "python3", dirs, filepath.Join(".", "kernel.py")))
}

// shellGoldens are the scripts the shell test drives: the wire's own and a few goldens covering a
// gate, references, channel output, a failing flow, a cancel, a resumeAs with its transform, a
// budget, the execute and decide arguments, a timer fired (each statement costs several jq and curl processes,
// so the shell test keeps to these; the Python test drives every expressible script).
var shellGoldens = map[string]bool{"approve": true, "failing": true, "rings": true,
	"suspend-resume": true, "names-and-pointers": true, "emit-stream-ui": true, "untyped-fails-flow": true,
	"cancel-parked": true, "resumeas-transform": true, "budget-exceeded": true, "decide-throws": true,
	"decide-context-policy": true, "typed-step-level-wins": true, "timers-sleep-until": true}

// shellSubset is the subset of loom-flowscript/1 kernel.sh drives (docs/wire.md): straight-line
// bodies of execute, run, decide, suspend, sleepUntil, emit, stream and ui, with no retry, in the script and
// in every resumeAs target.
func shellSubset(k clients.Case) bool {
	bodies := [][]flowscript.Stmt{k.Script.Body}
	for _, a := range k.Driver.Actions {
		if a.Script != nil {
			bodies = append(bodies, a.Script.Body)
		}
	}
	for _, body := range bodies {
		for _, st := range body {
			if !slices.Contains([]string{"execute", "run", "decide", "suspend", "sleepUntil", "emit", "stream", "ui"}, st.Op) || st.Retry > 0 {
				return false
			}
		}
	}
	return true
}
