package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func memLimit() int64 { return debug.SetMemoryLimit(-1) }

// Reference: I-PERF-11 — the collector is off, under a memory limit, until the first collection;
// then paced as Relax says, with the process's memory limit back; stop restores both.
func TestHoldThenRelax(t *testing.T) {
	unsetGOGC(t)
	before, beforeLimit := pace(), memLimit()
	stop := HoldThenRelax(64<<20, 400, 1<<40)
	defer stop()
	if got, lim := pace(), memLimit(); got != -1 || lim != min(64<<20, beforeLimit) {
		t.Fatalf("gcpace/hold [I-PERF-11]: pace, memory limit after HoldThenRelax(64 MiB, 400, 1 TiB) = %d, %d; want -1 (off), %d", got, lim, min(64<<20, beforeLimit))
	}
	runtime.GC()
	waitCleanups()
	if got, lim := pace(), memLimit(); got != 400 || lim != beforeLimit {
		t.Fatalf("gcpace/hold [I-PERF-11]: pace, memory limit after the first collection = %d, %d; want 400, %d (the process's)", got, lim, beforeLimit)
	}
	stop()
	stop()
	if got, lim := pace(), memLimit(); got != before || lim != beforeLimit {
		t.Fatalf("gcpace/hold [I-PERF-11]: pace, memory limit after stop = %d, %d; want %d, %d", got, lim, before, beforeLimit)
	}
}

// Reference: I-PERF-11 — stop before any collection gives back the pace and the memory limit, and
// a later collection changes neither.
func TestHoldStopBeforeAnyCollection(t *testing.T) {
	unsetGOGC(t)
	before, beforeLimit := pace(), memLimit()
	HoldThenRelax(64<<20, 400, 1<<40)()
	runtime.GC()
	waitCleanups()
	if got, lim := pace(), memLimit(); got != before || lim != beforeLimit {
		t.Fatalf("gcpace/hold-stop [I-PERF-11]: pace, memory limit after stop and a collection = %d, %d; want %d, %d", got, lim, before, beforeLimit)
	}
}

// Reference: I-PERF-11 — a process memory limit lower than the hold's stands; GOGC set leaves
// everything as it is.
func TestHoldKeepsTheUsersLimits(t *testing.T) {
	unsetGOGC(t)
	old := debug.SetMemoryLimit(32 << 20)
	defer debug.SetMemoryLimit(old)
	stop := HoldThenRelax(64<<20, 400, 1<<40)
	if lim := memLimit(); lim != 32<<20 {
		t.Errorf("gcpace/hold-user-limits [I-PERF-11]: memory limit under a process limit of 32 MiB = %d, want 32 MiB", lim)
	}
	stop()
	t.Setenv("GOGC", "150")
	before := pace()
	defer HoldThenRelax(64<<20, 400, 1<<40)()
	if got, lim := pace(), memLimit(); got != before || lim != 32<<20 {
		t.Errorf("gcpace/hold-user-limits [I-PERF-11]: with GOGC set, pace, memory limit = %d, %d; want %d, 32 MiB (unchanged)", got, lim, before)
	}
}
