package dispatchers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// exploreMisses are the broken dispatchers dispatcher/explore does not reject, each with why: the
// defect shows only once a lease expires or half its TTL passes (the dispatcher's own clock,
// which no seam method sets), or under racing claims.
var exploreMisses = map[string]string{
	"lose-on-crash":         "a package lost when its lease expires: needs the dispatcher's clock to pass the TTL",
	"expired-lease-revives": "a late heartbeat of an expired lease: needs the dispatcher's clock to pass the TTL",
	"half-ttl-takeover":     "a take-over once half the TTL has passed: needs the dispatcher's clock",
	"expires-in-seconds":    "expiresAt in seconds: compared only against the old expiry, which is in seconds too",
	"any-ttl":               "TTLs outside 1 ms .. 10 min: the exploration takes every lease for two minutes",
}

func TestExploreDispatchers(t *testing.T) {
	kit := kits.ExecutionDispatcherKit()
	var rejected, missed []string
	var rounds []int
	for _, b := range dispatchers.Dispatchers() {
		rs, err := kits.Run(context.Background(), kit, b.Factory(), kits.Options{Run: "^dispatcher/explore$", Seed: 7})
		if err != nil || len(rs) != 1 {
			t.Fatalf("Run(dispatcher/explore) = %d results, %v", len(rs), err)
		}
		r := rs[0]
		choiceOnly := spec.RequirementOf(b.Clauses) == spec.Recommended
		switch {
		case r.Verdict == kits.Fail:
			rejected = append(rejected, b.Name)
			if r.Finding != nil {
				rounds = append(rounds, r.Finding.Script.Round)
			}
			if choiceOnly && r.Requirement == spec.Required {
				t.Errorf("%s (%s) violates only choices %v, but the exploration rejects it with a required assertion: %s", b.Name, b.Defect, b.Clauses, r.Message)
			}
			if why, ok := exploreMisses[b.Name]; ok {
				t.Errorf("%s is listed as missed (%s) but the exploration rejects it", b.Name, why)
			}
		case r.Verdict == kits.Pass || exploreMisses[b.Name] != "":
			missed = append(missed, b.Name)
			// a natural-window dispatcher races over one yield inside one claim: the exploration's
			// claims are made one at a time, so it may pass one (dispatcher/concurrent-* reject each)
			if _, ok := exploreMisses[b.Name]; !ok && !strings.HasSuffix(b.Name, "-natural") {
				t.Errorf("%s (%s, violates %v): the exploration passed it, want it rejected", b.Name, b.Defect, b.Clauses)
			}
		default:
			t.Errorf("%s: verdict %s: %s", b.Name, r.Verdict, r.Message)
		}
	}
	t.Logf("dispatcher/explore rejects %d of %d broken dispatchers (finding in round %v); missed: %s", len(rejected), len(rejected)+len(missed), rounds, strings.Join(missed, ", "))
}

func TestExploreSeedsMemoryDispatcher(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rs, err := kits.Run(context.Background(), kits.ExecutionDispatcherKit(), func(context.Context) (spi.ExecutionDispatcher, func(), error) {
			return memory.New(memory.Config{Targets: []string{"cpu", "gpu"}}), nil, nil
		}, kits.Options{Run: "^dispatcher/explore$", Seed: seed})
		if err != nil || len(rs) != 1 || rs[0].Verdict != kits.Pass {
			t.Errorf("seed %d: dispatcher/explore = %v, %v", seed, rs, err)
		}
	}
}
