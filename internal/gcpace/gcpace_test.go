package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// pace returns the collector's current percentage without changing it.
func pace() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestRelaxHandsBackPastTheLimit(t *testing.T) {
	unsetGOGC(t)
	before := pace()
	stop := Relax(400, 8<<20)
	defer stop()
	if got := pace(); got != 400 {
		t.Fatalf("pace after Relax(400, 8 MiB) = %d, want 400", got)
	}
	runtime.GC() // a small live heap: the pace stays relaxed
	waitCleanups()
	if got := pace(); got != 400 {
		t.Fatalf("pace after a collection with a small live heap = %d, want 400", got)
	}
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 256<<10)) // 16 MiB live
	}
	deadline := time.Now().Add(10 * time.Second)
	for pace() != before && time.Now().Before(deadline) {
		runtime.GC()
		waitCleanups()
	}
	runtime.KeepAlive(keep)
	if got := pace(); got != before {
		t.Fatalf("pace after a collection found 16 MiB live past an 8 MiB limit = %d, want %d (restored)", got, before)
	}
}

func TestRelaxStopRestores(t *testing.T) {
	unsetGOGC(t)
	before := pace()
	stop := Relax(300, 1<<40)
	stop()
	stop()
	if got := pace(); got != before {
		t.Fatalf("pace after stop = %d, want %d", got, before)
	}
}

func TestRelaxKeepsTheUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "150")
	before := pace()
	defer Relax(400, 1<<40)()
	if got := pace(); got != before {
		t.Fatalf("pace with GOGC set = %d, want %d (unchanged)", got, before)
	}
}

// unsetGOGC removes GOGC from the environment for the test (t.Setenv restores it after).
func unsetGOGC(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
}

// waitCleanups gives the cleanup goroutine time to run what the last collection queued.
func waitCleanups() {
	for range 5 {
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}
}
