package fold

import (
	"runtime"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// fillLog is a start and n INBOX_QUARANTINED facts for one topic.
func fillLog(n int) []spi.Envelope {
	log := []ev{{"EXECUTION_STARTED", started, ""}}
	for i := range n {
		log = append(log, ev{"INBOX_QUARANTINED", `{"topic":"t","messageId":"m` + itoa(i) + `","message":{"n":1}}`, kernel})
	}
	return envs(0, log...)
}

// allocPerEntry is the heap bytes one fold of log allocates, per quarantined entry.
func allocPerEntry(t *testing.T, log []spi.Envelope, n int) float64 {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	st, err := Fold(Current(), nil, log)
	runtime.ReadMemStats(&m1)
	if err != nil || len(st.Variables.Quarantined["t"]) != min(n, MaxQuarantined) {
		t.Fatalf("Fold(fill %d) = %d entries, %v", n, len(st.Variables.Quarantined["t"]), err)
	}
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n)
}

// Reference: DESIGN §4 (owned mutation inside one pass, O(events)) — filling a topic's queue to
// the 1 024 bound in one pass allocates a bounded amount per fact: the bytes per entry at 1 024
// stay within twice those at 128 (a copy of the queue per fact would make them eight times as many).
func TestQuarantineFillLinear(t *testing.T) {
	small, large := fillLog(128), fillLog(MaxQuarantined)
	allocPerEntry(t, large, MaxQuarantined) // warm up
	a, b := allocPerEntry(t, small, 128), allocPerEntry(t, large, MaxQuarantined)
	t.Logf("bytes per entry: fill 128 = %.0f, fill 1 024 = %.0f", a, b)
	if b > 2*a {
		t.Errorf("fold/quarantine-linear [S3.fold.structural-sharing I-FOLD-10]: Fold(fill 1 024) = %.0f bytes/entry, want at most 2 × Fold(fill 128) = %.0f", b, 2*a)
	}
}

// Reference: spec §3 copy-on-write — a pass appends to and releases from a queue in place only
// once it owns a copy: the caller's snapshot, and an earlier result from the same snapshot, are
// never written.
func TestQuarantineCopyOnWrite(t *testing.T) {
	log := fillLog(40)
	snap, err := Fold(Current(), nil, log)
	if err != nil {
		t.Fatal(err)
	}
	before := canon(t, snap)
	rel := func(seq int64, id, extra string) spi.Envelope {
		return envs(seq, ev{"INBOX_RELEASED", `{"topic":"t","messageId":"` + id + `"` + extra + `}`, kernel})[0]
	}
	q := func(seq int64, id string) spi.Envelope {
		return envs(seq, ev{"INBOX_QUARANTINED", `{"topic":"t","messageId":"` + id + `"}`, kernel})[0]
	}
	n := int64(len(log))
	tailA := []spi.Envelope{rel(n, "m0", `,"operator":"o"`), rel(n+1, "m1", `,"auto":true,"deliver":true`), q(n+2, "x"), q(n+3, "m5"), q(n+4, "m0")}
	a, err := Fold(Current(), &snap, tailA)
	if err != nil {
		t.Fatal(err)
	}
	afterA := canon(t, a)
	tailB := []spi.Envelope{rel(n, "m0", `,"operator":"o","deliver":true`), q(n+1, "y")}
	if _, err := Fold(Current(), &snap, tailB); err != nil {
		t.Fatal(err)
	}
	if got := canon(t, snap); got != before {
		t.Errorf("fold/quarantine-cow [S3.fold.copy-on-write]: Fold wrote to the caller's snapshot:\n%s\nwant\n%s", got, before)
	}
	if got := canon(t, a); got != afterA {
		t.Errorf("fold/quarantine-cow [S3.fold.copy-on-write]: a later fold from the snapshot changed an earlier result")
	}
	qa := a.Variables.Quarantined["t"]
	if len(qa) != 41 || !qa[0].Released || qa[0].MessageID != "m1" || qa[len(qa)-1].MessageID != "m0" {
		t.Errorf("fold/quarantine-cow [I-FOLD-10]: queue after tail A = %d entries, head %+v, last %+v; want 41 (m0 discarded, x and m0 appended, m5 a duplicate), m1 released, m0 last", len(qa), qa[0], qa[len(qa)-1])
	}
	// The whole log folded in one pass agrees with the snapshot path.
	whole, err := Fold(Current(), nil, append(append([]spi.Envelope{}, log...), tailA...))
	if err != nil || canon(t, whole) != afterA {
		t.Errorf("fold/quarantine-cow [S4.snapshot.every-k]: Fold(whole) = %v, want the snapshot path's state", err)
	}
}

// BenchmarkQuarantineFill folds a start and n INBOX_QUARANTINED facts for one topic in one pass,
// for n = 128 and n = 1 024 alternately, and reports ns per fact at the bound and the ratio of
// the two costs per fact measured in this run (about 1 when the cost per fact is flat, about 8
// when each fact copies the queue).
func BenchmarkQuarantineFill(b *testing.B) {
	logs := [2][]spi.Envelope{fillLog(128), fillLog(MaxQuarantined)}
	var el [2]time.Duration
	for b.Loop() {
		for i, log := range logs {
			start := time.Now()
			for range 8 {
				if _, err := Fold(Current(), nil, log); err != nil {
					b.Fatal(err)
				}
			}
			el[i] += time.Since(start)
		}
	}
	small := float64(el[0]) / float64(128)
	large := float64(el[1]) / float64(MaxQuarantined)
	b.ReportMetric(large/float64(8*b.N), "ns/fact(1024)")
	b.ReportMetric(large/small, "per-fact(1024)/per-fact(128)")
}
