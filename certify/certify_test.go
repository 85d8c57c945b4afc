package certify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spec"
)

func TestChecksNameKnownClauses(t *testing.T) {
	if err := spec.Validate(certify.Checks()); err != nil {
		t.Fatal(err)
	}
}

func failing(rep *certify.Report) []string {
	var out []string
	for _, c := range rep.Checks {
		if c.Verdict != kits.Pass && c.Verdict != kits.Skip {
			out = append(out, string(c.Verdict)+" "+c.ID+": "+firstLine(c.Message))
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func find(rep *certify.Report, id string) (certify.CheckResult, bool) {
	for _, c := range rep.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return certify.CheckResult{}, false
}

// The README's first command: the embedded SQLite store certified end to end over the bridge.
// Reference: spec §10 (kits run against the SQLite reference implementation), I-BRIDGE-1.
func TestCertifyBuiltinSQLite(t *testing.T) {
	var progress strings.Builder
	rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "sqlite"}},
		certify.Config{Kinds: certify.Kinds(), Progress: &progress, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified() || rep.Summary.Fail+rep.Summary.Unknown != 0 {
		t.Fatalf("Run(builtin sqlite).Certified = %v, want true; not passing: %v; problems: %v", rep.Certified(), failing(rep), rep.Problems)
	}
	if len(rep.Seams) != len(certify.Kinds()) {
		t.Errorf("Run(all).Seams = %d seams, want %d", len(rep.Seams), len(certify.Kinds()))
	}
	for _, s := range rep.Seams {
		if s.Verdict != certify.Certified || s.SpiVersion == "" {
			t.Errorf("seam %s = %+v, want certified with a version", s.Seam, s)
		}
	}
	if n := strings.Count("\n"+progress.String(), "\n["); n != rep.Summary.Total {
		t.Errorf("progress has %d check lines, want one per check (%d)", n, rep.Summary.Total)
	}
	if !strings.HasPrefix(progress.String(), "starting builtin sqlite") || !strings.Contains(progress.String(), "\nwaiting for a store bridge at ") ||
		!strings.Contains(progress.String(), "\nhandshake: loom-conform sqlite") {
		t.Errorf("progress does not say what it starts and who answered:\n%s", progress.String())
	}
	if rep.Summary.RequiredRun == 0 || rep.Summary.RequiredPass != rep.Summary.RequiredRun {
		t.Errorf("Summary = %+v, want every required check run and passed", rep.Summary)
	}
}

// brokenStore is what the bridge test needs of a kits/broken store.
type brokenStore struct{ kind, name, defect, catch string }

func brokenStores() []brokenStore {
	var out []brokenStore
	for _, b := range broken.EventStores() {
		out = append(out, brokenStore{"eventstore", b.Name, b.Defect, b.Catch})
	}
	for _, b := range broken.SnapshotStores() {
		out = append(out, brokenStore{"snapshotstore", b.Name, b.Defect, b.Catch})
	}
	for _, b := range broken.ArchiveStores() {
		out = append(out, brokenStore{"archivestore", b.Name, b.Defect, b.Catch})
	}
	for _, b := range broken.BranchRegistries() {
		out = append(out, brokenStore{"branchregistry", b.Name, b.Defect, b.Catch})
	}
	return out
}

// A broken store behind a bridge is rejected by the check meant for it, with that check's clauses:
// every kit works through the wire unchanged.
func TestBrokenStoresBehindBridgeRejected(t *testing.T) {
	for _, b := range brokenStores() {
		if b.catch == "eventstore/append-cancel-not-torn" && b.name != "torn-on-cancel" {
			// Through a bridge a caller's cancellation never reaches the store (I-BRIDGE-5) and a
			// cut call's outcome is unknown by definition; a store that commits and then reports a
			// cancellation is caught in process by kits.EventStore.
			continue
		}
		t.Run(b.kind+"/"+b.name, func(t *testing.T) {
			catch, faults := b.catch, false
			if b.name == "torn-on-cancel" {
				// Over a bridge a caller's cancellation never reaches the store (I-BRIDGE-5); a
				// connection cut does, and that is what the fault kit does.
				catch, faults = "faults/cut-connections", true
			}
			rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "broken:" + b.kind + "/" + b.name}},
				certify.Config{Kinds: []string{b.kind}, Run: "^" + catch + "$", Timeout: 30 * time.Second, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := find(rep, catch)
			if !ok || c.Verdict != kits.Fail || c.Blocking != (c.Requirement == spec.Required) {
				t.Fatalf("%s: check %s = %+v, want a fail, blocking when required (%s)", b.name, catch, c, b.defect)
			}
			if !faults { // the fault kit's kill over the wire is asserted; the kit check registered for the mutant proves it
				proof.Rejected(t, broken.MutantID(b.kind, b.name), catch, c.Message)
			}
			// A recommended failure alone blocks nothing (run alone it certifies nothing either: no
			// required check ran, I-STORE-24).
			if c.Blocking && rep.Certified() || !c.Blocking && rep.Summary.Blocking != 0 {
				t.Errorf("%s: certified %v, %d blocking, with a %s failure", b.name, rep.Certified(), rep.Summary.Blocking, c.Level)
			}
		})
	}
}

// The expected-failures ledger must be kept true (I-BRIDGE-8).
func TestLedgerKeptTrue(t *testing.T) {
	const bad, good = "eventstore/read-range-bounds", "eventstore/append-conflict"
	target := certify.BuiltinTarget{Backend: certify.Backend{Name: "broken:off-by-one-read-range"}}
	subset := "^(" + bad + "|" + good + ")$"
	run := func(t *testing.T, ledger string, now time.Time) *certify.Report {
		t.Helper()
		cfg := certify.Config{Kinds: []string{"eventstore"}, Run: subset, Now: func() time.Time { return now }}
		if ledger != "" {
			l, err := certify.ParseLedger("ledger.json", []byte(ledger))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Ledger = l
		}
		rep, err := certify.Run(context.Background(), target, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if rep := run(t, "", now); rep.Certified() {
		t.Errorf("unlisted failure: certified, want not")
	}
	listed := `{"expectedFailures":[{"check":"` + bad + `","reason":"off by one, tracked","expires":"2026-12-31"}]}`
	// A listed MUST failure is a waiver: on a subset the run is partial, on the full run certified
	// with 1 waiver; never a plain certificate (I-CERT-1, I-CERT-2).
	if rep := run(t, listed, now); rep.Verdict != certify.Partial || rep.Summary.Expected != 1 || rep.Summary.Waivers != 1 {
		t.Errorf("listed failure, --run subset: verdict %s, expected %d, waivers %d; want partial with 1 waiver; %v", rep.Verdict, rep.Summary.Expected, rep.Summary.Waivers, failing(rep))
	}
	subset = ""
	// the whole run also explores, which meets the same defect: both failures are listed
	listedAll := `{"expectedFailures":[{"check":"` + bad + `","reason":"off by one, tracked","expires":"2026-12-31"},{"check":"eventstore/explore","reason":"the same defect, explored","expires":"2026-12-31"}]}`
	if rep := run(t, listedAll, now); rep.Verdict != certify.CertifiedWithWaivers || rep.Summary.Waivers != 2 {
		t.Errorf("listed failures, full run: verdict %s, waivers %d; want certified-with-waivers with 2 waivers; %v", rep.Verdict, rep.Summary.Waivers, failing(rep))
	}
	subset = "^(" + bad + "|" + good + ")$"
	if rep := run(t, listed, now.AddDate(0, 2, 0)); rep.Certified() {
		t.Errorf("expired entry: certified, want not")
	}
	stale := `{"expectedFailures":[{"check":"` + bad + `","reason":"known"},{"check":"` + good + `","reason":"was broken once"}]}`
	rep := run(t, stale, now)
	if c, _ := find(rep, good); rep.Certified() || !c.Blocking || !strings.Contains(c.Why, "passes") {
		t.Errorf("listed check that passes: certified %v, %s = %+v; want it blocking", rep.Certified(), good, c)
	}
	// An entry naming no check is bad input, refused before the target starts (I-CERT-33).
	l, _ := certify.ParseLedger("ledger.json", []byte(`{"expectedFailures":[{"check":"eventstore/no-such-check","reason":"typo"}]}`))
	if rep, err := certify.Run(context.Background(), target, certify.Config{Kinds: []string{"eventstore"}, Ledger: l}); err == nil ||
		!strings.Contains(err.Error(), `ledger.json: expectedFailures[0].check "eventstore/no-such-check" names no check`) {
		t.Errorf("certify/ledger [I-CERT-33]: entry naming no check = %v, %v; want bad input naming the entry", rep, err)
	}
	for name, in := range map[string]string{
		"no reason": `{"expectedFailures":[{"check":"x"}]}`, "bad date": `{"expectedFailures":[{"check":"x","reason":"r","expires":"soon"}]}`,
		"unknown field": `{"expectedFailures":[{"check":"x","reason":"r","until":"2027-01-01"}]}`, "not json": `[`,
	} {
		if _, err := certify.ParseLedger("ledger.json", []byte(in)); err == nil || !strings.Contains(err.Error(), "ledger.json") {
			t.Errorf("ParseLedger(%s) = %v, want an error naming the file", name, err)
		}
	}
}

// Bridges that misbehave each get a clear verdict; the run finishes and is not certified
// (I-BRIDGE-2, I-BRIDGE-4, I-BRIDGE-6). A bridge that is gone or frozen is the target's failure,
// named by its one cause, and never a clause's (I-CERT-12).
func TestBadBridges(t *testing.T) {
	bin := certifytest.BuildProgram(t, "certify/testdata/badbridge")
	cases := []struct {
		mode    string
		run     string
		check   func(t *testing.T, rep *certify.Report)
		timeout time.Duration
	}{
		{"hang", "^(bridge/handshake|eventstore/append-read-order|eventstore/append-conflict|eventstore/isolation|eventstore/roundtrip-values)$",
			func(t *testing.T, rep *certify.Report) {
				if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "does not answer") || !strings.Contains(rep.TargetError, "eventstore/append-read-order") {
					t.Errorf("a bridge whose store calls hang = %s %q, want target-failed naming the silent bridge and the check it froze in", rep.Verdict, rep.TargetError)
				}
				if rep.Summary.Fail != 0 || rep.Summary.Unknown != 0 {
					t.Errorf("a hanging bridge got %d fail and %d unknown verdicts, want none (an outage is no verdict): %v", rep.Summary.Fail, rep.Summary.Unknown, failing(rep))
				}
			}, time.Second},
		{"crash", "^(bridge/handshake|eventstore/.*)$", func(t *testing.T, rep *certify.Report) {
			if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "bridge process") || !strings.Contains(rep.TargetError, "exited") {
				t.Errorf("a crashed bridge = %s %q, want target-failed naming the exited bridge process", rep.Verdict, rep.TargetError)
			}
			for _, c := range rep.Checks {
				if c.Verdict == kits.Fail || c.Verdict == kits.Unknown {
					t.Errorf("%s = %s %q after the crash, want no check judged on an outage", c.ID, c.Verdict, c.Message)
				}
			}
			if c, _ := find(rep, "bridge/handshake"); c.Verdict != kits.Pass {
				t.Errorf("bridge/handshake = %s, want its pass (judged before the crash) kept", c.Verdict)
			}
			if !strings.Contains(rep.Logs, "crashing on purpose") {
				t.Errorf("report logs %q do not hold the bridge's stderr", rep.Logs)
			}
		}, 10 * time.Second},
		{"malformed", "^(bridge/declared-methods-answer|eventstore/append-read-order)$", func(t *testing.T, rep *certify.Report) {
			for _, id := range []string{"bridge/declared-methods-answer", "eventstore/append-read-order"} {
				c, _ := find(rep, id)
				if c.Verdict != kits.Fail || !strings.Contains(c.Message, "protocol") {
					t.Errorf("%s = %s %q, want a protocol failure", id, c.Verdict, c.Message)
				} else {
					proof.Rejected(t, "bridge/badbridge/malformed", id, c.Message)
				}
			}
			if c, _ := find(rep, "eventstore/append-read-order"); !contains(c.Clauses, "I-BRIDGE-4") {
				t.Errorf("append-read-order clauses %v, want I-BRIDGE-4 added", c.Clauses)
			}
		}, 10 * time.Second},
		{"lying", "^(bridge/declared-methods-answer|eventstore/read-range-bounds|eventstore/append-read-order)$", func(t *testing.T, rep *certify.Report) {
			for _, id := range []string{"bridge/declared-methods-answer", "eventstore/read-range-bounds"} {
				if c, _ := find(rep, id); c.Verdict != kits.Fail {
					t.Errorf("%s = %s %q, want fail (declared but not served)", id, c.Verdict, c.Message)
				}
			}
			if c, _ := find(rep, "eventstore/append-read-order"); c.Verdict != kits.Pass {
				t.Errorf("append-read-order = %s %q, want pass (read and append work)", c.Verdict, c.Message)
			}
		}, 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			start := time.Now()
			rep, err := certify.Run(context.Background(), certify.ExecTarget{Command: bin + " -mode " + tc.mode},
				certify.Config{Kinds: []string{"eventstore"}, Run: tc.run, Timeout: tc.timeout, StartTimeout: 20 * time.Second, OutageWait: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Certified() {
				t.Errorf("bad bridge %s certified", tc.mode)
			}
			if c, _ := find(rep, "bridge/handshake"); tc.run[1:7] == "(bridg" && c.ID != "" && c.Verdict != kits.Pass && tc.mode != "lying" {
				t.Errorf("bridge/handshake = %s %q, want pass", c.Verdict, c.Message)
			}
			tc.check(t, rep)
			t.Logf("%s: %d checks in %s", tc.mode, len(rep.Checks), time.Since(start).Round(time.Millisecond))
		})
	}
}

// The bridge kit is proven by broken bridges: each is rejected by the check meant for it.
func TestBridgeKitRejectsBrokenBridges(t *testing.T) {
	const where = "certify:TestBridgeKitRejectsBrokenBridges"
	bin := certifytest.BuildProgram(t, "certify/testdata/badbridge")
	modes := []string{"future", "lying", "wrongcodes", "fragile"}
	var built []string
	for _, m := range modes {
		built = append(built, "bridge/badbridge/"+m)
	}
	for _, m := range proof.Registered(t, certify.Mutants(), where, built) {
		mode := strings.TrimPrefix(m.ID, "bridge/badbridge/")
		t.Run(mode, func(t *testing.T) {
			rep, err := certify.Run(context.Background(), certify.ExecTarget{Command: bin + " -mode " + mode},
				certify.Config{Kinds: []string{"eventstore"}, Run: "^bridge/", StartTimeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Checks {
				want := kits.Pass
				if contains(m.CaughtBy, c.ID) {
					want = kits.Fail
				}
				// A check for a seam the bridge does not serve skips, naming what is missing.
				unserved := want == kits.Pass && c.Verdict == kits.Skip && strings.Contains(c.Message, "the bridge serves")
				if c.Verdict != want && !(want == kits.Pass && mode == "lying") && !unserved {
					t.Errorf("%s: %s = %s %q, want %s", mode, c.ID, c.Verdict, firstLine(c.Message), want)
				}
			}
			for _, id := range m.CaughtBy {
				if c, ok := find(rep, id); ok && c.Verdict == kits.Fail {
					proof.Rejected(t, m.ID, id, c.Message)
				} else {
					t.Errorf("%s: check %s = %s, want fail", m.ID, id, c.Verdict)
				}
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// A bridge subprocess (serve-store) is certified; its logs land in the report.
func TestCertifyExec(t *testing.T) {
	bin := certifytest.Binary(t)
	file := filepath.Join(t.TempDir(), "loom.db")
	rep, err := certify.Run(context.Background(), certify.ExecTarget{Command: bin + " serve-store --backend sqlite --file " + file},
		certify.Config{Kinds: []string{"eventstore", "snapshotstore"}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified() {
		t.Fatalf("Run(exec serve-store).Certified = false: %v %v", failing(rep), rep.Problems)
	}
	if rep.Target.PID == 0 {
		t.Errorf("Target.PID = 0, want the subprocess id")
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the SQLite file was not written: %v", err)
	}
}

// With faults, an exec bridge is cut and frozen mid-workload and keeps every acknowledged append
// (I-BRIDGE-7).
func TestFaultsExec(t *testing.T) {
	bin := certifytest.Binary(t)
	rep, err := certify.Run(context.Background(), certify.ExecTarget{Command: bin + " serve-store --backend sqlite"},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^faults/", Faults: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"faults/cut-connections", "faults/pause-resume"} {
		if c, ok := find(rep, id); !ok || c.Verdict != kits.Pass {
			t.Errorf("%s = %+v, want pass", id, c)
		}
	}
}

// The PostgreSQL reference store (`certify --dsn`) certified end to end, in a schema of its own.
func TestCertifyPostgres(t *testing.T) {
	dsn := postgres.TestDSN(t)
	schema := postgres.UniqueSchema("certify")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if db, err := postgres.Open(ctx, dsn, schema); err == nil {
			_ = db.DropSchema(ctx)
			db.Close()
		}
	})
	rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "postgres", DSN: dsn, Schema: schema}},
		certify.Config{Kinds: certify.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified() {
		t.Fatalf("Run(--dsn).Certified = false: %v %v", failing(rep), rep.Problems)
	}
	if rep.Target.Kind != "dsn" || strings.Contains(rep.Target.Spec, "password=") && !strings.Contains(rep.Target.Spec, "xxxxx") {
		t.Errorf("Target = %+v, want a dsn target with the password hidden", rep.Target)
	}
}
