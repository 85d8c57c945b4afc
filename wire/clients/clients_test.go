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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed; the acceptance client must run under CI (.ci/run installs it)", tool)
			}
			t.Skipf("%s is not installed; install it (or run .ci/run) to run this acceptance client", tool)
		}
	}
}

type line struct {
	Flow        string         `json:"flow"`
	ExecutionID string         `json:"executionId"`
	Canonical   string         `json:"canonical"`
	Log         []spi.Envelope `json:"log"`
}

// runClient serves the reference kernel (deterministic) and runs the client command against it.
func runClient(t *testing.T, name string, args ...string) []line {
	t.Helper()
	store := memory.NewEventStore()
	c, _, err := carrier.NewProfile(store, true, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, append(args, srv.URL+"/", "flows.json")...)
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

// compare holds the client's runs byte-identical (state) and value-identical (log, which passed
// through the client's JSON tools) to the same flows run in process on the reference kernel.
func compare(t *testing.T, client string, got []line) {
	t.Helper()
	flows, err := clients.Flows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(flows) {
		t.Fatalf("wire/clients [A26.acceptance]: %s drove %d flows, want %d", client, len(got), len(flows))
	}
	store := memory.NewEventStore()
	rt, err := kernel.New(carrier.ProfileConfig(store, true, carrier.ProfileRings(), kernel.Hooks{}))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range flows {
		want, err := carrier.RunInProcess(context.Background(), rt, store, "wire-"+f.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		g := got[i]
		if g.Canonical != want.State {
			t.Errorf("wire/clients [A26.acceptance]: %s flow %s: folded state differs from the in-process run (-want +got):\n%s", client, f.ID, cmp.Diff(want.State, g.Canonical))
		}
		if d := cmp.Diff(norm(want.Log), norm(g.Log)); d != "" {
			t.Errorf("wire/clients [A26.acceptance]: %s flow %s: log differs from the in-process run (-want +got):\n%s", client, f.ID, d)
		}
	}
}

func norm(evs []spi.Envelope) []any {
	b, _ := json.Marshal(evs)
	var v []any
	_ = json.Unmarshal(b, &v)
	return v
}

// Reference: ADR 0026 acceptance — a POSIX shell client using only curl and jq starts, suspends,
// resumes and replays executions; the fold is byte-identical to the in-process run.
func TestShellClient(t *testing.T) {
	need(t, "sh", "curl", "jq")
	compare(t, "kernel.sh", runClient(t, "sh", filepath.Join(".", "kernel.sh")))
}

// Reference: ADR 0026 acceptance — the same with a Python client using only the standard library.
func TestPythonClient(t *testing.T) {
	need(t, "python3")
	compare(t, "kernel.py", runClient(t, "python3", filepath.Join(".", "kernel.py")))
}
