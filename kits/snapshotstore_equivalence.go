package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// foldLog builds a seeded, realistic log for x: a start, steps that complete, fail and retry,
// decisions with array-index-like ids (whose key order a normalising store changes), a park and a
// resume, and an unknown event type.
func foldLog(x string, rnd *rand.Rand, n int) []spi.Envelope {
	var out []spi.Envelope
	add := func(typ string, payload any, meta string) {
		b, _ := json.Marshal(payload)
		e := spi.Envelope{ID: fmt.Sprintf("%s#%d", x, len(out)), WorkflowID: "wf-kit", ExecutionID: x, EventType: typ,
			Sequence: int64(len(out)), Timestamp: 1_767_225_600_000 + int64(len(out))*1000, Payload: b}
		if meta != "" {
			e.Metadata = json.RawMessage(meta)
		}
		out = append(out, e)
	}
	add("EXECUTION_STARTED", map[string]any{"input": map[string]any{"order": 42, "items": []any{"a", "b"}, "big": json.Number("12345678901234567890")}}, "")
	step := 0
	for len(out) < n {
		switch rnd.Intn(7) {
		case 0, 1:
			id := fmt.Sprintf("s%d", step)
			step++
			add("STEP_STARTED", map[string]any{"stepId": id, "attempt": 1, "input": map[string]any{"k": id}}, "")
			if rnd.Intn(3) == 0 {
				add("STEP_FAILED", map[string]any{"stepId": id, "error": map[string]any{"message": "boom"}}, "")
				add("STEP_RETRYING", map[string]any{"stepId": id, "attempt": 2}, "")
			}
			add("STEP_COMPLETED", map[string]any{"stepId": id, "output": map[string]any{"v": rnd.Intn(1000), "f": 0.5}}, "")
		case 2:
			id := []string{"10", "2", "b", "a", "1"}[rnd.Intn(5)]
			add("DECISION_RECORDED", map[string]any{"id": id, "choice": rnd.Intn(3), "context": map[string]any{"z": 1, "a": 2}}, "")
		case 3:
			add("EXECUTION_SUSPENDED", map[string]any{"on": "approval"}, "")
			add("EXECUTION_RESUMED", map[string]any{"ok": true, "by": "ü"}, "")
		case 4:
			add("KIT_UNKNOWN_TYPE", map[string]any{"ignored": true}, "")
		case 5:
			add("RESOURCE_METERED", map[string]any{"tokens": rnd.Intn(50), "costUsd": 0.001}, "")
		default:
			add("KIT_EMIT", map[string]any{"n": len(out)}, `{"flowEmit":"0123456789abcdef"}`)
		}
	}
	return out[:n]
}

func ssEquivalence(ctx context.Context, c *SnapshotStoreCase) error {
	p := fold.Current()
	x := c.ExecID("equiv")
	log := foldLog(x, c.Rand, 40)
	full, err := fold.Fold(p, nil, log)
	if err != nil {
		return fmt.Errorf("kit: folding its own log: %w", err)
	}
	want, err := fold.CanonicalState(full)
	if err != nil {
		return fmt.Errorf("kit: canonical state: %w", err)
	}
	for k := 0; k < len(log); k++ {
		at, err := fold.Fold(p, nil, log[:k+1])
		if err != nil {
			return fmt.Errorf("kit: folding its own log through %d: %w", k, err)
		}
		state, err := fold.CanonicalState(at)
		if err != nil {
			return fmt.Errorf("kit: canonical state at %d: %w", k, err)
		}
		if err := c.Store.Save(ctx, spi.Snapshot{ExecutionID: x, Sequence: int64(k), State: state}); err != nil {
			return c.Failf("Save", fmt.Sprintf("%q, seq %d", x, k), err, "nil")
		}
		loaded, err := c.Store.LoadLatest(ctx, x)
		if err != nil {
			return c.Failf("LoadLatest", fmt.Sprintf("%q) after (a save at %d", x, k), err, "the snapshot")
		}
		if loaded.Sequence != int64(k) {
			return c.Failf("LoadLatest", fmt.Sprintf("%q) after (saves 0..%d", x, k), fmt.Sprintf("sequence %d", loaded.Sequence), k)
		}
		snapState, err := fold.ParseState(loaded.State)
		if err != nil {
			return c.Failf("ParseState", fmt.Sprintf("LoadLatest(%q).State at %d", x, k), err, "a state the fold reads")
		}
		got, err := fold.Fold(p, &snapState, log[k+1:])
		if err != nil {
			return c.Failf("Fold", fmt.Sprintf("snapshot@%d, tail %d..%d", k, k+1, len(log)-1), err, "nil")
		}
		gotB, err := fold.CanonicalState(got)
		if err != nil {
			return fmt.Errorf("kit: canonical state: %w", err)
		}
		if d := c.Diff("Fold", fmt.Sprintf("snapshot@%d loaded from the store, tail %d..%d", k, k+1, len(log)-1), string(want), string(gotB)); d != nil {
			return d
		}
	}
	return nil
}
