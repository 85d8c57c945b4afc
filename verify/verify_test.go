package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	storemem "github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/verify"
)

// Reference: spec §6 — a pinned computeTarget must resolve to a registered dispatcher target
// (placement-compat), checked before anything runs (I-DISPATCH-7).
func TestPlacementCompat(t *testing.T) {
	dep, err := verify.ParseDeployment("deploy.json", []byte(`{"timerStore":true,"flows":[
		{"id":"ok","computeTarget":"gpu"},{"id":"free"},{"id":"lost","computeTarget":"tpu"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep := verify.Deployment(dep, []string{"cpu", "gpu"})
	if rep.OK() || len(rep.Findings) != 1 {
		t.Fatalf("placement-compat [S6.placement.compute-target]: Deployment(ok, free, lost@tpu) = %v, want exactly one MUST finding", rep.Findings)
	}
	f := rep.Findings[0]
	if f.Rule != verify.RulePlacement || f.Flow != "lost" || f.Target != "tpu" || !strings.Contains(f.Message, `"tpu"`) || !strings.Contains(f.Message, "cpu, gpu") {
		t.Fatalf("placement-compat [S6.placement.compute-target]: finding = %+v, want flow lost, target tpu named with the registered targets", f)
	}
	// The library call a start path makes asks the dispatcher itself.
	d := memory.New(memory.Config{Targets: []string{"cpu"}})
	ctx := context.Background()
	if err := verify.CheckPlacement(ctx, d, "f", "cpu"); err != nil {
		t.Fatalf("CheckPlacement(cpu) = %v, want nil", err)
	}
	if err := verify.CheckPlacement(ctx, d, "f", ""); err != nil {
		t.Fatalf("CheckPlacement(unpinned) = %v, want nil", err)
	}
	err = verify.CheckPlacement(ctx, d, "f", "gpu")
	var pe *verify.PlacementError
	if !errors.As(err, &pe) || !errors.Is(err, spi.ErrUnknownTarget) || pe.Target != "gpu" {
		t.Fatalf("placement-compat [S6.placement.compute-target]: CheckPlacement(gpu) = %v, want a PlacementError naming gpu", err)
	}
	if err := verify.CheckPlacement(ctx, nil, "f", "gpu"); err == nil {
		t.Fatal("placement-compat: CheckPlacement(no dispatcher, pinned) = nil, want a refusal")
	}
}

// Reference: spec §5 — a timed suspend without a TimerStore is never woken, which suspension-safety
// reports (I-DISPATCH-8): statically from the deployment, and for a live parked execution.
func TestSuspensionSafetySurfaced(t *testing.T) {
	dep, err := verify.ParseDeployment("d.json", []byte(`{"flows":[{"id":"nap","timedSuspends":["sleep"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep := verify.Deployment(dep, nil)
	if !rep.OK() || len(rep.Findings) != 1 || rep.Findings[0].Rule != verify.RuleSuspension || rep.Findings[0].Level != spec.Should {
		t.Fatalf("suspension-safety [S5.timer.unwired-reported]: Deployment = %+v, want one SHOULD finding and OK", rep)
	}
	dep.TimerStore = true
	if rep := verify.Deployment(dep, nil); len(rep.Findings) != 0 {
		t.Fatalf("suspension-safety: with a TimerStore Deployment = %v, want no finding", rep.Findings)
	}

	ctx := context.Background()
	rt, err := kernel.New(kernel.Config{Store: storemem.NewEventStore(), Now: kernel.FixedClock(1000, 1), NewID: kernel.SequentialIDs("e")})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Register(kernel.FlowDef{ID: "nap", Fn: func(c *kernel.Context, _ json.RawMessage) (any, error) {
		return nil, c.Sleep(time.Hour)
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Start(ctx, "nap", "x", nil); err != nil {
		t.Fatal(err)
	}
	fs, err := verify.Executions(ctx, rt, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Execution != "x" || fs[0].Rule != verify.RuleSuspension {
		t.Fatalf("suspension-safety [S5.timer.unwired-reported]: Executions(x parked on a sleep, no TimerStore) = %+v, want one finding", fs)
	}
}

func TestParseDeploymentRefusesBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"flows":[{"id":""}]}`, "flows[0].id: empty"},
		{`{"flows":[{"id":"a"},{"id":"a"}]}`, "flows[1].id"},
		{`{"flows":[],"__proto__":{}}`, "__proto__"},
		{`{"flows":[]} {}`, "trailing"},
		{`{}`, "flows: missing"},
		{`[`, "d.json"},
		{`{"flows":[{"id":"a","computeTarget":7}]}`, "computeTarget"},
	} {
		if _, err := verify.ParseDeployment("d.json", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "d.json") {
			t.Errorf("ParseDeployment(%s) = %v, want an error naming d.json and %q", tc.in, err, tc.want)
		}
	}
}

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(verify.Checks()); err != nil {
		t.Fatal(err)
	}
}
