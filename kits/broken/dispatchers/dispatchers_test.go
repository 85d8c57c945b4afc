package dispatchers_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §6, §7 — the dispatcher kit rejects each broken dispatcher by the check meant for it.
func TestBrokenDispatchersRejected(t *testing.T) {
	kit := kits.ExecutionDispatcherKit()
	ids := map[string]bool{}
	for _, id := range kit.Names() {
		ids[id] = true
	}
	bs := dispatchers.Dispatchers()
	if len(bs) < 8 {
		t.Fatalf("%d broken dispatchers, want at least 8", len(bs))
	}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			if !ids[b.Catch] {
				t.Fatalf("broken dispatcher %s names check %q, which the kit does not have", b.Name, b.Catch)
			}
			results, err := kits.Run(context.Background(), kit, b.Factory(),
				kits.Options{Run: "^" + regexp.QuoteMeta(b.Catch) + "$", Timeout: 20 * time.Second, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != 1 || results[0].Verdict != kits.Fail {
				t.Fatalf("%s (%s): check %s = %v, want fail", b.Name, b.Defect, b.Catch, results)
			}
			if !regexp.MustCompile(`^` + regexp.QuoteMeta(b.Catch) + ` \[[^\]]+\]: [\w/]+\(`).MatchString(results[0].Message) {
				t.Errorf("message %q does not follow `<check id> [<clause ids>]: Op(args) = got, want want`", results[0].Message)
			}
			proof.Rejected(t, "dispatcher/execution-dispatcher/"+b.Name, b.Catch, results[0].Message)
			t.Logf("%s rejected: %s", b.Name, results[0].Message)
		})
	}
}

func TestMemoryDispatcherKit(t *testing.T) {
	kits.ExecutionDispatcher(t, func(ctx context.Context) (spi.ExecutionDispatcher, func(), error) {
		return memory.New(memory.Config{Targets: []string{"cpu", "gpu"}}), nil, nil
	})
}

func TestMutantsValid(t *testing.T) {
	if err := spec.ValidateMutants(dispatchers.Mutants()); err != nil {
		t.Fatal(err)
	}
	if err := spec.Validate(dispatchers.Checks()); err != nil {
		t.Fatal(err)
	}
}

// A dispatcher that claims only the head of its queue, on a target that holds another check's
// leased package, is diagnosed as stalled at its head, not merely cut short (I-CERT-61).
func TestHeadOfLineStallDiagnosed(t *testing.T) {
	var head dispatchers.Broken
	for _, b := range dispatchers.Dispatchers() {
		if b.Name == "head-of-line" {
			head = b
		}
	}
	d := head.New()
	ctx := context.Background()
	// An earlier check's package, claimed and left leased: the head of the queue.
	if err := d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: "kit-earlier-check-1", FlowID: "kit-flow", Target: "cpu"}); err != nil {
		t.Fatal(err)
	}
	shared := func(context.Context) (spi.ExecutionDispatcher, func(), error) { return d, nil, nil }
	results, err := kits.Run(ctx, kits.ExecutionDispatcherKit(), shared, kits.Options{Run: "^dispatcher/ack-final$", Timeout: 4 * time.Second, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Verdict != kits.Unknown || !strings.Contains(results[0].Message, "the queue stalled at its head") ||
		!strings.Contains(results[0].Message, "kit-earlier-check-1") {
		t.Fatalf("head-of-line dispatcher behind another check's lease = %+v, want unknown, diagnosed as stalled at its head behind kit-earlier-check-1", results)
	}
	t.Log(results[0].Message)
}
