package vectors

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// A saved counterexample is a valid vector that the reference passes, and saving it twice is a
// no-op.
func TestSaveCounterexample(t *testing.T) {
	dir := t.TempDir()
	p := fold.Current()
	evs := []spi.Envelope{
		{ID: "e0", WorkflowID: "w", ExecutionID: "x", EventType: "EXECUTION_STARTED", Sequence: 0, Timestamp: 1, Payload: json.RawMessage(`{"input":1}`)},
		{ID: "e1", WorkflowID: "w", ExecutionID: "x", EventType: "EXECUTION_SUSPENDED", Sequence: 1, Timestamp: 2, Payload: json.RawMessage(`{"on":"g"}`)},
		{ID: "e2", WorkflowID: "w", ExecutionID: "x", EventType: "EXECUTION_RESUMED", Sequence: 2, Timestamp: 3, Payload: json.RawMessage(`null`)},
	}
	whole, err := fold.Fold(p, nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := fold.Fold(p, nil, evs[:2])
	if err != nil {
		t.Fatal(err)
	}
	cx := Counterexample{Clauses: []string{"S4.snapshot.every-k"}, Reason: "every-k failed at k=2 (rapid seed 7)", Profile: p,
		Snapshot: &snap, Events: evs[2:], Expect: whole}
	path, err := SaveCounterexample(dir, cx)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := SaveCounterexample(dir, cx); err != nil || again != path {
		t.Fatalf("SaveCounterexample twice = %q, %v; want %q, nil", again, err, path)
	}
	c, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Vectors) != 1 || !strings.HasPrefix(c.Vectors[0].ID, "counterexample/s4-snapshot-every-k-") {
		t.Fatalf("LoadDir(saved) = %+v, want one counterexample/s4-snapshot-every-k-* vector", c.Vectors)
	}
	if rep := Run(context.Background(), c, Reference{}, Config{}); !rep.OK() {
		t.Errorf("the reference fails the saved counterexample: %+v", rep.Results)
	}
	data, _ := os.ReadFile(path)
	if v, err := Parse(data, path); err != nil || v.ID != c.Vectors[0].ID {
		t.Errorf("Parse(saved file) = %v, %v", v.ID, err)
	}
}
