package fuzz_test

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
)

// Reference: I-COV-3 — over a fixed seed set the generator's
// cases, folded by the reference, reach every refusal: each error kind, every envelope member
// an invalid-envelope refusal can name, and the snapshot reader's refusals of each part of a
// state. (Statement coverage of reference/fold while these cases fold is in docs/performance.md.)
func TestGeneratedCasesReachEveryRefusal(t *testing.T) {
	const check, seeds = "vectors/fuzz-reach", 10000
	seen := map[string]int{}
	field := regexp.MustCompile(`^(?:envelope \d+: )?([A-Za-z_]+)`)
	snapField := regexp.MustCompile(`^snapshot\.?([A-Za-z_]*)`)
	cfg := fuzz.Config{}
	for s := uint64(0); s < seeds; s++ {
		c := fuzz.Generate(s, cfg.ProfileOf(s))
		r, err := vectors.Reference{}.Answer(context.Background(), c.Request("x"))
		if err != nil || (r.Error == "" && r.Output == nil) {
			t.Fatalf("%s: Reference.Answer(seed %d) = %+v, %v, want an answer", check, s, r, err)
		}
		switch r.Error {
		case "":
			seen["state"]++
		case vectors.ErrInvalidSnapshot:
			seen["invalid-snapshot"]++
			if m := snapField.FindStringSubmatch(r.Message); m != nil {
				seen["snapshot."+m[1]]++
			}
		case vectors.ErrInvalidEnvelope:
			seen["invalid-envelope"]++
			if m := field.FindStringSubmatch(r.Message); m != nil {
				seen["envelope."+m[1]]++
			}
		default:
			seen[r.Error]++
		}
	}
	want := []string{"state", "invalid-envelope", "sequence", "mixed-executions", "invalid-snapshot",
		"envelope.id", "envelope.workflowId", "envelope.executionId", "envelope.eventType", "envelope.sequence",
		"envelope.timestamp", "envelope.payload", "envelope.metadata",
		"snapshot.", "snapshot.status", "snapshot.sequence", "snapshot.startedAt", "snapshot.updatedAt", "snapshot.frames",
		"snapshot.variables", "snapshot.extra"}
	for _, k := range want {
		if seen[k] == 0 {
			var got []string
			for k, n := range seen {
				got = append(got, k+"="+strconv.Itoa(n))
			}
			sort.Strings(got)
			t.Errorf("%s [I-COV-3]: over %d seeds %q never occurs; seen %v", check, seeds, k, got)
		}
	}
}
