package kits_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// minimal implements only the required EventStore methods.
type minimal struct{ m *memory.EventStore }

func (s minimal) Append(ctx context.Context, id string, e []spi.Envelope, o spi.AppendOptions) error {
	return s.m.Append(ctx, id, e, o)
}
func (s minimal) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return s.m.Read(ctx, id)
}

// hanging never returns from Append, whatever the context says.
type hanging struct{ minimal }

func (hanging) Append(context.Context, string, []spi.Envelope, spi.AppendOptions) error {
	select {}
}

// panicking panics on Read.
type panicking struct{ minimal }

func (panicking) Read(context.Context, string) ([]spi.Envelope, error) { panic("store exploded") }

// unsupported has every method but says readRange is not really there.
type unsupported struct{ *memory.EventStore }

func (unsupported) Implements(m string) bool { return m != spi.MethodReadRange }

func factoryOf(s spi.EventStore) kits.Factory[spi.EventStore] {
	return func(context.Context) (spi.EventStore, func(), error) { return s, nil, nil }
}

func verdicts(results []kits.Result) map[string]kits.Verdict {
	out := map[string]kits.Verdict{}
	for _, r := range results {
		out[r.CheckID] = r.Verdict
	}
	return out
}

func TestRequiredOnlyStoreSkipsOptionalChecks(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(minimal{memory.NewEventStore()}), kits.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		optional := false
		for _, ch := range kits.EventStoreKit().Checks {
			if ch.ID == r.CheckID && len(ch.Requires) > 0 {
				optional = true
			}
		}
		switch {
		case optional && r.Verdict != kits.Skip:
			t.Errorf("%s: verdict %s, want skip (method not implemented)", r.CheckID, r.Verdict)
		case optional && !strings.Contains(r.Message, "does not implement"):
			t.Errorf("%s: skip message %q does not name the missing method", r.CheckID, r.Message)
		case r.CheckID == "eventstore/version-claim" && r.Verdict == kits.Skip:
			// minimal states no version: nothing to judge, a named skip.
		case !optional && r.Verdict != kits.Pass:
			t.Errorf("%s: verdict %s (%s), want pass", r.CheckID, r.Verdict, r.Message)
		}
	}
}

func TestHangingStoreIsUnknownNotAHang(t *testing.T) {
	start := time.Now()
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(hanging{}),
		kits.Options{Run: `^eventstore/append-read-order$`, Timeout: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Verdict != kits.Unknown || !strings.Contains(results[0].Message, "time limit") {
		t.Fatalf("Run(hanging store) = %+v, want one unknown verdict that names the time limit", results)
	}
	// The stall is named for what it is: the call that did not return (I-CERT-61).
	if !strings.Contains(results[0].Message, "the call kits_test.hanging.Append (from kits.appendOK) did not return") {
		t.Errorf("Run(hanging store) = %q, want it to name the call that did not return", results[0].Message)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Run(hanging store) took %s, want about the timeout", d)
	}
}

// A store that panics crashed under the check: that is the store's failure, not the run's.
func TestPanickingStoreFails(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(panicking{minimal{memory.NewEventStore()}}),
		kits.Options{Run: `^eventstore/read-unknown-empty$`})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Verdict != kits.Fail || !strings.Contains(results[0].Message, "store exploded") {
		t.Fatalf("Run(panicking store) = %+v, want fail naming the panic", results)
	}
}

func TestCapabilitiesSayNo(t *testing.T) {
	results, _ := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(unsupported{memory.NewEventStore()}),
		kits.Options{Run: `^eventstore/(read-range-bounds|fence-zombie)$`})
	if got := verdicts(results); got["eventstore/read-range-bounds"] != kits.Skip || got["eventstore/fence-zombie"] != kits.Pass {
		t.Fatalf("verdicts = %v, want read-range-bounds skip (Implements says no), fence-zombie pass", got)
	}
}

func TestOptionsAndReport(t *testing.T) {
	if _, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(minimal{memory.NewEventStore()}), kits.Options{Run: "("}); err == nil {
		t.Error("Run(Options{Run: \"(\"}) = nil error, want a regexp error")
	}
	if _, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(minimal{memory.NewEventStore()}), kits.Options{SpiVersion: "two"}); err == nil {
		t.Error("Run(Options{SpiVersion: \"two\"}) = nil error, want a version error")
	}
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(memory.NewEventStoreWithClock(time.Now)),
		kits.Options{Run: `^eventstore/(store-now|delete-through)$`, SpiVersion: "2.4.0", Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(results)
	if len(got) != 2 || got["eventstore/store-now"] != kits.Pass || got["eventstore/delete-through"] != kits.Skip {
		t.Fatalf("verdicts at SPI 2.4.0 = %v, want store-now pass, delete-through (2.6.0) skip", got)
	}
	b, err := json.Marshal(results[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"kit", "checkId", "clauses", "level", "verdict", "durationMs", "seed"} {
		if _, ok := m[k]; !ok {
			t.Errorf("Result JSON %s lacks %q", b, k)
		}
	}
	if m["seed"].(float64) != 99 {
		t.Errorf("Result seed = %v, want 99", m["seed"])
	}
	// store-now is a SHOULD and delete-through skipped: no MUST check ran, so nothing is certified.
	if kits.Certified(results) || kits.RequiredRun(results, "eventstore") != 0 {
		t.Errorf("Certified(SHOULD pass + MUST skip) = true (RequiredRun %d), want false: no required check ran", kits.RequiredRun(results, "eventstore"))
	}
	if kits.Certified(nil) {
		t.Errorf("Certified(no results) = true, want false")
	}
}

// saysUnsupported declares every method (no Capabilities) and answers unsupported to all of them.
type saysUnsupported struct{}

func (saysUnsupported) Append(context.Context, string, []spi.Envelope, spi.AppendOptions) error {
	return fmt.Errorf("backend: %w", spi.ErrUnsupported)
}
func (saysUnsupported) Read(context.Context, string) ([]spi.Envelope, error) {
	return nil, fmt.Errorf("backend: %w", spi.ErrUnsupported)
}
func (saysUnsupported) EventStoreSpiVersion() string { return "2.6.0" }

// A declared method answering unsupported is a failure, never a skip; only undeclared methods skip.
func TestDeclaredUnsupportedFails(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(saysUnsupported{}), kits.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		ch := checkOf(r.CheckID)
		switch {
		case len(ch.Requires) == 0 && r.CheckID != "eventstore/version-claim" && r.Verdict != kits.Fail:
			t.Errorf("%s = %s (%s), want fail (the required methods answer unsupported)", r.CheckID, r.Verdict, r.Message)
		case len(ch.Requires) > 0 && r.Verdict != kits.Skip:
			t.Errorf("%s = %s, want skip (method not declared)", r.CheckID, r.Verdict)
		}
	}
	if kits.Certified(results) {
		t.Error("Certified(a store answering unsupported to everything) = true, want false")
	}
}

func checkOf(id string) kits.Check[spi.EventStore] {
	for _, ch := range kits.EventStoreKit().Checks {
		if ch.ID == id {
			return ch
		}
	}
	return kits.Check[spi.EventStore]{}
}

func TestCheckTwinJoinsViolations(t *testing.T) {
	if err := kits.CheckEventStore(context.Background(), factoryOf(memory.NewEventStore()), kits.Options{}); err != nil {
		t.Fatalf("CheckEventStore(memory) = %v, want nil", err)
	}
	err := kits.CheckEventStore(context.Background(), factoryOf(panicking{minimal{memory.NewEventStore()}}), kits.Options{Run: `^eventstore/(read-unknown-empty|isolation)$`})
	if err == nil || strings.Count(err.Error(), "fail:") != 2 {
		t.Fatalf("CheckEventStore(panicking) = %v, want two joined failures", err)
	}
}

func TestRunByName(t *testing.T) {
	f := func(context.Context) (any, func(), error) { return memory.NewBranchRegistry(), nil, nil }
	results, err := kits.RunByName(context.Background(), "branchregistry", f, kits.Options{})
	if err != nil || len(results) == 0 || !kits.Certified(results) {
		t.Fatalf("RunByName(branchregistry, memory) = %d results, %v; certified %v, want all pass", len(results), err, kits.Certified(results))
	}
	results, err = kits.RunByName(context.Background(), "eventstore", f, kits.Options{Run: "^eventstore/read-unknown-empty$"})
	if err != nil || len(results) != 1 || results[0].Verdict != kits.Unknown || !strings.Contains(results[0].Message, "does not implement the eventstore seam") {
		t.Fatalf("RunByName(eventstore, a registry) = %+v, %v, want unknown naming the missing seam", results, err)
	}
	if _, err := kits.RunByName(context.Background(), "nope", f, kits.Options{}); err == nil {
		t.Fatal("RunByName(nope) = nil error, want unknown kit")
	}
}

func TestViolationGrammar(t *testing.T) {
	v := &kits.Violation{Check: "eventstore/x", Clauses: []string{"I-STORE-1", "S6.fencing.zombie"}, Op: "Read", Args: `"e") after (two appends`, Got: "1", Want: "2"}
	want := `eventstore/x [I-STORE-1 S6.fencing.zombie]: Read("e") = 1, want 2 (after two appends)`
	if v.Error() != want {
		t.Fatalf("Error() = %q, want %q", v.Error(), want)
	}
}

// panicsInGoroutine panics in Append, which the concurrency checks call from their own goroutines.
type panicsInGoroutine struct{ minimal }

func (panicsInGoroutine) Append(context.Context, string, []spi.Envelope, spi.AppendOptions) error {
	panic("append exploded")
}

func TestPanicInACheckGoroutineFails(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(panicsInGoroutine{minimal{memory.NewEventStore()}}),
		kits.Options{Run: `^eventstore/(append-concurrent-one-wins|linearizable)$`})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != kits.Fail || !strings.Contains(r.Message, "append exploded") {
			t.Errorf("%s = %s (%s), want fail naming the panic", r.CheckID, r.Verdict, r.Message)
		}
	}
}

func TestCatalogListsEveryCheck(t *testing.T) {
	md := kits.CatalogMarkdown()
	for _, c := range kits.Checks() {
		if !strings.Contains(md, "`"+c.ID+"`") {
			t.Errorf("CatalogMarkdown() lacks %s", c.ID)
		}
	}
	if !strings.Contains(md, "| `eventstore/incarnation-anchor` | MUST |") || !strings.Contains(md, "| 2.3.0 |") {
		t.Errorf("CatalogMarkdown() does not show the incarnation check at 2.3.0")
	}
}

// A correct store that already holds many executions, before and after the kit's ids, passes the
// listing checks: the kit pages from its own id prefix (I-STORE-13).
func TestListingOnANonEmptyTarget(t *testing.T) {
	ctx := context.Background()
	s := memory.NewEventStore()
	for i := 0; i < 3000; i++ {
		for _, x := range []string{fmt.Sprintf("a-%05d", i), fmt.Sprintf("zz-%05d", i)} {
			if err := s.Append(ctx, x, []spi.Envelope{{ID: x, ExecutionID: x, EventType: "E", Payload: json.RawMessage(`1`)}}, spi.AppendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	results, err := kits.Run(ctx, kits.EventStoreKit(), factoryOf(s), kits.Options{Run: "^eventstore/list-executions", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != kits.Pass {
			t.Errorf("%s = %s (%s), want pass", r.CheckID, r.Verdict, r.Message)
		}
	}
}

func TestReproIsARunnableCommand(t *testing.T) {
	results, _ := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(memory.NewEventStore()), kits.Options{Run: "^eventstore/append-conflict$", Seed: 4})
	want := `LOOM_KITS_SEED=4 go test -count=1 -run '/^eventstore$/^append-conflict$' .`
	if len(results) != 1 || results[0].Repro != want {
		t.Fatalf("Repro = %q, want %q", results[0].Repro, want)
	}
}

// currentUnknown reports fenced errors without the current token, as a bridge whose error data
// leaves it out does.
type currentUnknown struct{ *memory.EventStore }

func hideCurrent(err error) error {
	var fe *spi.FencedError
	if errors.As(err, &fe) {
		return &spi.FencedError{ExecutionID: fe.ExecutionID, Held: fe.Held, CurrentUnknown: true}
	}
	return err
}

func (s currentUnknown) Append(ctx context.Context, id string, e []spi.Envelope, o spi.AppendOptions) error {
	return hideCurrent(s.EventStore.Append(ctx, id, e, o))
}

func (s currentUnknown) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	f, err := s.EventStore.AcquireFenceIf(ctx, id, expected)
	return f, hideCurrent(err)
}

// A fenced error that does not know the current token is not compared as token 0.
func TestFencedErrorWithoutCurrentPasses(t *testing.T) {
	results, err := kits.Run(context.Background(), kits.EventStoreKit(), factoryOf(currentUnknown{memory.NewEventStore()}), kits.Options{Run: "fence", Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != kits.Pass {
			t.Errorf("%s = %s (%s), want pass", r.CheckID, r.Verdict, r.Message)
		}
	}
}
