package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spec"
)

// folderFunc adapts a function to Folder.
type folderFunc func(ctx context.Context, req Request) (Response, error)

func (f folderFunc) Answer(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// stopsAt folds every profile newer than 1.<minor>.0 as 1.<minor>.0.
func stopsAt(minor int) Folder {
	cap := func(v string) string {
		p, err := fold.ProfileFor(v)
		if err != nil || p.Version() <= fmt.Sprintf("1.%d.0", minor) {
			return v
		}
		return fmt.Sprintf("1.%d.0", minor)
	}
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindFold {
			req.Profile = cap(req.Profile)
			if req.SnapshotProfile != "" {
				req.SnapshotProfile = cap(req.SnapshotProfile)
			}
		}
		return Reference{}.Answer(ctx, req)
	})
}

// rewriteEvents applies f to every event of a fold request before the reference folds it.
func rewriteEvents(f func(ev map[string]any) bool) Folder {
	return folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindFold && req.Events != nil {
			var evs []json.RawMessage
			for _, raw := range *req.Events {
				var ev map[string]any
				if json.Unmarshal(raw, &ev) != nil {
					evs = append(evs, raw)
					continue
				}
				if !f(ev) {
					continue
				}
				b, _ := json.Marshal(ev)
				evs = append(evs, b)
			}
			if evs == nil {
				evs = []json.RawMessage{}
			}
			req.Events = &evs
		}
		return Reference{}.Answer(ctx, req)
	})
}

// brokenFolders builds the in-process broken folds of Mutants, by id.
func brokenFolders() map[string]Folder {
	out := map[string]Folder{}
	for minor := 20; minor <= 25; minor++ {
		out[fmt.Sprintf("fold/vectors/stops-at-1.%d", minor)] = stopsAt(minor)
	}
	out["fold/vectors/trusts-unstamped"] = rewriteEvents(func(ev map[string]any) bool {
		md, _ := ev["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
		}
		md["kernel"] = true
		ev["metadata"] = md
		return true
	})
	out["fold/vectors/skips-sealed"] = rewriteEvents(func(ev map[string]any) bool {
		md, _ := ev["metadata"].(map[string]any)
		_, sealed := md["seal"]
		return !sealed
	})
	out["fold/vectors/canonical-unsorted"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindCanonical && req.Input != nil {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(*req.Input)); err == nil {
				s := b.String()
				return Response{ID: req.ID, Output: &s}, nil
			}
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/digest-ignores-segment"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindDigest && req.Segment != nil {
			zero := 0
			req.Segment = &zero
		}
		return Reference{}.Answer(ctx, req)
	})
	out["fold/vectors/digest-payload-only"] = folderFunc(func(ctx context.Context, req Request) (Response, error) {
		if req.Kind == KindDigest {
			req.EventType = ""
		}
		return Reference{}.Answer(ctx, req)
	})
	return out
}

// recordVectorKills asserts that every vector m names as catching it failed, and records a kill
// for every failing vector linked to a clause m violates. It returns the failing vector ids.
func recordVectorKills(t *testing.T, m spec.Mutant, rep Report) []string {
	t.Helper()
	violates := map[string]bool{}
	for _, c := range m.Clauses {
		violates[c] = true
	}
	failed := map[string]Result{}
	var ids []string
	for _, r := range rep.Results {
		if r.Verdict == Fail {
			failed["vector/"+r.ID] = r
			ids = append(ids, r.ID)
		}
	}
	for _, c := range m.CaughtBy {
		if _, ok := failed[c]; !ok {
			t.Errorf("%s %v: Run(%s) passed, want it failed (the mutant survives it)", c, m.Clauses, m.ID)
		}
	}
	for id, r := range failed {
		for _, c := range r.Clauses {
			if violates[c] {
				proof.Rejected(t, m.ID, id, fmt.Sprintf("%s %v: got %.120s, want %.120s", id, r.Clauses, r.Got, r.Want))
				break
			}
		}
	}
	return ids
}

// Every in-process broken fold fails the vectors that pin its defect; the kills are recorded per
// failing vector. Reference: spec §3, §4; ADR 0026 (the vectors catch a wrong fold).
func TestVectorsRejectBrokenFolds(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	folders := brokenFolders()
	var built []string
	for id := range folders {
		built = append(built, id)
	}
	for _, m := range proof.Registered(t, Mutants(), "vectors:TestVectorsRejectBrokenFolds", built) {
		t.Run(strings.TrimPrefix(m.ID, "fold/vectors/"), func(t *testing.T) {
			rep := Run(context.Background(), c, folders[m.ID], Config{})
			ids := recordVectorKills(t, m, rep)
			if len(ids) == 0 {
				t.Fatalf("Run(%s) failed no vector, want the mutant rejected", m.ID)
			}
			t.Logf("%s fails %d vectors", m.ID, len(ids))
		})
	}
}
