package kits_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// Options.Findings writes a finding as a replayable file; Options.Replay runs just that script:
// the same disagreement against the broken store, none against the reference.
func TestExploreFindingReplays(t *testing.T) {
	var b broken.Store[spi.DurableStateStore]
	for _, s := range broken.ClassDurableStateStores() {
		if s.Catch == "durablestatestore/version-across-delete" {
			b = s
		}
	}
	if b.New == nil {
		t.Fatal("no broken DurableStateStore for durablestatestore/version-across-delete")
	}
	dir := t.TempDir()
	kit := kits.DurableStateStoreKit()
	rs, err := kits.Run(context.Background(), kit, b.Factory(), kits.Options{Run: "^durablestatestore/explore$", Seed: 5, Findings: dir})
	if err != nil || len(rs) != 1 || rs[0].Verdict != kits.Fail || rs[0].FindingFile == "" {
		t.Fatalf("Run(%s, explore, findings) = %v, %v, want a failure written to %s", b.Name, rs, err, dir)
	}
	if filepath.Dir(rs[0].FindingFile) != dir {
		t.Errorf("finding written to %s, want it in %s", rs[0].FindingFile, dir)
	}
	data, err := os.ReadFile(rs[0].FindingFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := explore.ParseScript(data)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := kits.Run(context.Background(), kit, b.Factory(), kits.Options{Replay: &s, Seed: 99})
	if len(again) != 1 || again[0].Verdict != kits.Fail || again[0].Finding == nil || again[0].Finding.Mismatch.Op != rs[0].Finding.Mismatch.Op {
		t.Errorf("Replay against %s = %v, want the same disagreement (%s)", b.Name, again, rs[0].Finding.Mismatch.Op)
	}
	fixed, _ := kits.Run(context.Background(), kit, func(context.Context) (spi.DurableStateStore, func(), error) {
		return memory.NewDurableStateStore(), nil, nil
	}, kits.Options{Replay: &s})
	if len(fixed) != 1 || fixed[0].Verdict != kits.Pass {
		t.Errorf("Replay against the reference = %v, want a pass (no longer reproduces)", fixed)
	}
	if _, err := kits.Run(context.Background(), kits.SnapshotStoreKit(), nil, kits.Options{Replay: &s}); err == nil {
		t.Error("Replay of a durable-state script on the SnapshotStore kit = nil error, want one naming the check it lacks")
	}
}
