package vectors_test

import (
	"context"
	"encoding/json"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/internal/foreignfold"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as the foreign fold (package internal/foreignfold, the code of
// testdata/foreignfold): started with foreignFoldArg as its first argument it serves the protocol.
const foreignFoldArg = "-vectors.foreignfold"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == foreignFoldArg {
		os.Exit(foreignfold.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// foreignFold returns the command line that starts the foreign fold with args.
func foreignFold(args ...string) []string {
	return append([]string{os.Args[0], foreignFoldArg}, args...)
}

// handCorpus is the embedded corpus minus generated vectors and saved counterexamples, whose
// content changes with regeneration: the exact failing sets below are derived by hand for it.
func handCorpus(t *testing.T) vectors.Corpus {
	t.Helper()
	c, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var out vectors.Corpus
	for _, v := range c.Vectors {
		if !strings.HasPrefix(v.ID, "generated/") && !strings.HasPrefix(v.ID, "counterexample/") {
			out.Vectors = append(out.Vectors, v)
		}
	}
	return out
}

func runForeign(t *testing.T, c vectors.Corpus, timeout time.Duration, args ...string) (vectors.Report, *vectors.Process) {
	t.Helper()
	p, err := vectors.NewProcess(foreignFold(args...), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return vectors.Run(ctx, c, p, vectors.Config{Timeout: timeout}), p
}

// Reference: ADR 0026 T2.3 — the reference fold behind the protocol passes every vector.
func TestForeignCorrectFoldPassesAll(t *testing.T) {
	c, err := vectors.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep, p := runForeign(t, c, 10*time.Second, "-bug", "none")
	for _, r := range rep.Results {
		if r.Verdict != vectors.Pass {
			t.Errorf("%s", r.Message)
		}
	}
	if len(rep.Results) != len(c.Vectors) || p.Starts() != 1 {
		t.Errorf("ran %d of %d vectors with %d process start(s), want all with 1", len(rep.Results), len(c.Vectors), p.Starts())
	}
}

// Each deliberately wrong fold fails exactly the vectors that pin its defect (sets derived by
// reading the vectors, not by running the fold).
func TestForeignWrongFoldsFailExactly(t *testing.T) {
	cases := []struct {
		bug  string
		want []string
	}{
		// 1.21.0: never sets _failedWhileParked, so it is missing from the state and a null resume
		// after a parked failure is taken as a gate answer.
		{"forget-failed-while-parked", []string{
			"fold/park/failed-while-parked-kept-before-1.21",
			"fold/park/failed-while-parked-null-resume",
			"fold/park/failed-while-parked-set",
			"fold/snapshot/pre-1.21-parked-step-failure",
			"fold/snapshot/prefix-at-4",
			"fold/snapshot/resume-from-4",
			"fold/snapshot/whole-log",
		}},
		// DESIGN §3.3: keys sorted by UTF-8 bytes; differs only where an object holds keys whose
		// byte order is not their UTF-16 order (astral vs U+E000..U+FFFF, escaped lone surrogates).
		{"bytes-order", []string{
			"canonical/key-order-utf16",
			"canonical/key-order-utf16-vs-codepoint",
			"canonical/keys-lone-surrogates",
			"digest/payload-utf16-key-order",
			"fold/steps/frame-keys-utf16-order",
		}},
		// I-FOLD-22, I-FOLD-23: the same logs refused under other kinds, a choice each time.
		{"other-error-kinds", []string{
			"fold/input/sequence-before-execution",
			"fold/input/sequence-beyond-safe",
			"fold/input/sequence-fraction",
			"fold/input/sequence-missing",
			"fold/input/sequence-null",
			"fold/input/sequence-string",
		}},
		// Another legal option of one choice each: only the vectors (or the choice paths) that
		// choice decides differ, so every failure is a recommendation not met.
		{"stamp-canonical", []string{"fold/emits/non-string-stamp-ignored"}}, // I-FOLD-4
		{"decision-keeps-first", []string{ // I-FOLD-12: /variables/_decisions/<id>/choice
			"fold/decisions/legacy-entry-never-gets-seq",
			"fold/decisions/mixed-fleet-1.23-rebuilds-without-seq",
			"fold/decisions/mixed-fleet-stays-unstamped",
			"fold/decisions/seq-first-record-from-envelope",
		}},
		{"drop-oldest-at-bound", []string{"fold/v1_25/quarantine-bound-1024"}},                                         // I-FOLD-10: each entry's messageId
		{"meter-whole", []string{"fold/numbers/metered-extremes", "fold/v1_23/metered-invalid-members"}},               // I-FOLD-15
		{"release-usable", []string{"fold/v1_25/release-auto-false-counts", "fold/v1_25/release-members-by-presence"}}, // I-FOLD-27
		{"keep-previous", []string{"fold/basic/second-start-without-input"}},                                           // I-FOLD-17
		{"pending-until-start", []string{"fold/basic/completed-without-start", "fold/v1_20/null-resume-pending"}},      // I-FOLD-28: /status
	}
	c := handCorpus(t)
	// 1.24.0: a fold that does not stamp seq fails every vector whose expected state holds a
	// stamped decision entry (spec §4: "a foreign fold that does not stamp seq fails the vector").
	var seqVectors []string
	for _, v := range c.Vectors {
		if expectsSeq(t, v) {
			seqVectors = append(seqVectors, v.ID)
		}
	}
	slices.Sort(seqVectors)
	if !slices.Contains(seqVectors, "fold/decisions/context-policy-seq") {
		t.Fatalf("seq vectors %q lack fold/decisions/context-policy-seq", seqVectors)
	}
	cases = append(cases, struct {
		bug  string
		want []string
	}{"no-seq", seqVectors})
	for _, tc := range cases {
		t.Run(tc.bug, func(t *testing.T) {
			rep, _ := runForeign(t, c, 10*time.Second, "-bug", tc.bug)
			got := rep.Failing(vectors.Fail)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("vectors/wrong-folds [A26.vectors.language-agnostic]: Run(foreignfold -bug %s) failing = %q, want %q", tc.bug, got, tc.want)
			}
			if u := rep.Failing(vectors.Unknown); len(u) > 0 {
				t.Errorf("unknown verdicts %q, want none", u)
			}
			m := recordForeignKills(t, "fold/vectors/foreign-"+tc.bug, rep)
			certifiedIffChoicesOnly(t, m, rep)
		})
	}
}

// certifiedIffChoicesOnly holds a broken fold's run to its registration (issue: a tier per
// assertion): it passes, its failures listed as recommendations not met, exactly when every clause
// the fold is registered as breaking is a choice; under --strict it never passes.
func certifiedIffChoicesOnly(t *testing.T, m spec.Mutant, rep vectors.Report) {
	t.Helper()
	choicesOnly := spec.RequirementOf(m.Clauses) == spec.Recommended
	c := rep.Counts()
	if rep.OK() != choicesOnly {
		t.Errorf("vectors/tiers [I-CERT-10]: Run(%s) OK = %v (%d failed, %d of them recommendations not met), want %v: it is registered as breaking %v",
			m.ID, rep.OK(), c.Fail, c.NotMet, choicesOnly, m.Clauses)
	}
	if choicesOnly && c.NotMet != c.Fail {
		t.Errorf("vectors/tiers: Run(%s) = %d failures, %d recommendations not met; want every failure a recommendation", m.ID, c.Fail, c.NotMet)
	}
	strict := rep
	strict.Meta.Strict = true
	if c.Fail > 0 && strict.OK() {
		t.Errorf("vectors/tiers: Run(%s) under --strict OK = true, want false (%d failures)", m.ID, c.Fail)
	}
}

// recordForeignKills records a kill of the registered mutant id for every failing vector linked to
// a clause it violates, after checking the vectors it names as catching it failed. It returns the
// mutant.
func recordForeignKills(t *testing.T, id string, rep vectors.Report) spec.Mutant {
	t.Helper()
	var m spec.Mutant
	for _, x := range vectors.Mutants() {
		if x.ID == id {
			m = x
		}
	}
	if m.ID == "" || m.Where != "vectors:TestForeignWrongFoldsFailExactly" {
		t.Fatalf("foreign fold bug %s is not registered by vectors.Mutants with this test as its proof", id)
	}
	failed := map[string]vectors.Result{}
	for _, r := range rep.Results {
		if r.Verdict == vectors.Fail {
			failed["vector/"+r.ID] = r
		}
	}
	for _, c := range m.CaughtBy {
		if _, ok := failed[c]; !ok {
			t.Errorf("%s: Run(%s) passed, want it failed", c, id)
		}
	}
	proven := map[string]bool{}
	for vid, r := range failed {
		// A kill counts for the vectors the bug is registered to be caught by, and for the clauses
		// their failing assertions cite; any further vector it fails is asserted by the exact-set
		// test, not recorded as proof.
		if !slices.Contains(m.CaughtBy, vid) {
			continue
		}
		for _, c := range r.FailedClauses() {
			if slices.Contains(m.Clauses, c) {
				proven[c] = true
			}
		}
		if slices.ContainsFunc(r.FailedClauses(), func(c string) bool { return slices.Contains(m.Clauses, c) }) {
			proof.Rejected(t, id, vid, vid+": "+r.Message)
		}
	}
	for _, c := range m.Clauses {
		if !proven[c] {
			t.Errorf("%s: no vector it is registered as caught by fails an assertion citing %s, want one (a clause it breaks)", id, c)
		}
	}
	return m
}

// expectsSeq reports whether v's expected state holds a _decisions entry with a seq.
func expectsSeq(t *testing.T, v vectors.Vector) bool {
	t.Helper()
	if v.Kind != vectors.KindFold || v.Expect.State == nil {
		return false
	}
	var st struct {
		Variables struct {
			Decisions map[string]map[string]json.RawMessage `json:"_decisions"`
		} `json:"variables"`
	}
	if err := json.Unmarshal(v.Expect.State, &st); err != nil {
		t.Fatalf("%s: %v", v.File, err)
	}
	for _, d := range st.Variables.Decisions {
		if _, ok := d["seq"]; ok {
			return true
		}
	}
	return false
}

// A foreign fold that cannot even start (it exits at once) fails the ping: every vector is
// unknown without being asked, the run judged nothing and fails (I-CERT-7, I-CERT-8).
func TestForeignCrashLoopUnknown(t *testing.T) {
	all := handCorpus(t)
	c := vectors.Corpus{Vectors: all.Vectors[:6]}
	rep, p := runForeign(t, c, 2*time.Second, "-no-such-flag")
	if u := rep.Failing(vectors.Unknown); len(u) != len(c.Vectors) {
		t.Errorf("Run(process exiting at start) unknown = %d of %d", len(u), len(c.Vectors))
	}
	if p.Starts() != 1 || rep.Unresponsive == "" || rep.Judged() || rep.OK() {
		t.Errorf("process starts = %d, unresponsive %q, judged %v, OK %v; want one start (the ping), unresponsive, nothing judged, not OK",
			p.Starts(), rep.Unresponsive, rep.Judged(), rep.OK())
	}
}

// A foreign fold that hangs from the start (`sleep 1000`) costs one timeout, not one per vector:
// the ping goes unanswered and every vector is unknown at once; the run ends within 3 × the
// timeout (I-CERT-8).
func TestForeignHangingFoldEndsFast(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	c := handCorpus(t)
	const timeout = 2 * time.Second
	p, err := vectors.NewProcess([]string{"sleep", "1000"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	rep := vectors.Run(context.Background(), c, p, vectors.Config{Timeout: timeout})
	elapsed := time.Since(start)
	asked := 0
	for _, r := range rep.Results {
		if !r.NotAsked {
			asked++
		}
	}
	if asked != 0 || rep.Unresponsive == "" || len(rep.Results) != len(c.Vectors) || rep.OK() {
		t.Errorf("vectors/unresponsive-fold [I-CERT-8]: Run(sleep 1000) asked %d vectors, unresponsive %q, %d results; want none asked, all %d unknown",
			asked, rep.Unresponsive, len(rep.Results), len(c.Vectors))
	}
	if elapsed > 3*timeout {
		t.Errorf("vectors/unresponsive-fold [I-CERT-8]: Run(sleep 1000) took %v, want within 3 × %v", elapsed, timeout)
	}
}

// hangsAfter answers its first n requests and then never again (until ctx ends).
type hangsAfter struct {
	n, asked, pings int
}

func (h *hangsAfter) Answer(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	if req.ID == vectors.PingID {
		h.pings++
	} else {
		h.asked++
	}
	if h.asked+h.pings <= h.n {
		return vectors.Response{ID: req.ID, Error: vectors.ErrUnsupported}, nil
	}
	<-ctx.Done()
	return vectors.Response{}, context.Cause(ctx)
}

// A fold that answers for a while and then hangs is given up on after DeadAfter unanswered vectors
// and one unanswered ping: the number of questions is bounded, not one timeout per vector.
func TestForeignFoldThatStopsAnswering(t *testing.T) {
	c := handCorpus(t)
	f := &hangsAfter{n: 5}
	rep := vectors.Run(context.Background(), c, f, vectors.Config{Timeout: 20 * time.Millisecond, DeadAfter: 2})
	// 1 ping + 4 vectors answered, then 2 vectors and 1 ping unanswered.
	if f.asked != 6 || f.pings != 2 || rep.Unresponsive == "" || len(rep.Results) != len(c.Vectors) {
		t.Errorf("vectors/unresponsive-fold [I-CERT-8]: Run(fold hanging after 5 answers) asked %d vectors and %d pings, unresponsive %q; want 6 vectors, 2 pings, unresponsive",
			f.asked, f.pings, rep.Unresponsive)
	}
}

// A foreign fold that hangs, dies or writes garbage gets unknown verdicts for exactly those
// vectors; it is restarted each time and the run goes on.
func TestForeignHangCrashGarbageUnknown(t *testing.T) {
	all := handCorpus(t)
	var c vectors.Corpus
	for _, v := range all.Vectors {
		if v.Kind == vectors.KindCanonical && len(c.Vectors) < 8 {
			c.Vectors = append(c.Vectors, v)
		}
	}
	hang, crash, garbage := c.Vectors[1].ID, c.Vectors[3].ID, c.Vectors[5].ID
	rep, p := runForeign(t, c, 2*time.Second, "-hang-on", hang, "-crash-on", crash, "-garbage-on", garbage)
	got := rep.Failing(vectors.Unknown)
	want := []string{hang, crash, garbage}
	if !slices.Equal(got, want) {
		t.Errorf("Run(hang/crash/garbage) unknown = %q, want %q", got, want)
	}
	if n := rep.Counts().Pass; n != len(c.Vectors)-3 {
		t.Errorf("Run(hang/crash/garbage) passed %d, want %d", n, len(c.Vectors)-3)
	}
	if p.Starts() != 4 {
		t.Errorf("process starts = %d, want 4 (one plus a restart after each unknown)", p.Starts())
	}
	for _, r := range rep.Results {
		if r.Verdict == vectors.Unknown && !strings.Contains(r.Message, "no answer") {
			t.Errorf("unknown verdict message %q does not say why", r.Message)
		}
	}
	if rep.OK() {
		t.Error("Report.OK() = true with unknown verdicts, want false")
	}
}

func TestNewProcessRefusesMissingCommand(t *testing.T) {
	if _, err := vectors.NewProcess([]string{"/nonexistent/fold-binary"}, ""); err == nil {
		t.Error("NewProcess(missing command) = nil error, want one")
	}
}

// The ledger: a listed failure is tolerated; an unlisted one, a listed pass and a listed unknown
// id all make the run fail.
func TestLedgerKeptTrue(t *testing.T) {
	c := handCorpus(t)
	p, err := vectors.NewProcess(foreignFold("-bug", "bytes-order"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	failing := []string{"canonical/key-order-utf16", "canonical/key-order-utf16-vs-codepoint", "canonical/keys-lone-surrogates",
		"digest/payload-utf16-key-order", "fold/steps/frame-keys-utf16-order"}
	ledger := func(ids ...string) *vectors.Ledger {
		l := &vectors.Ledger{}
		for _, id := range ids {
			l.Entries = append(l.Entries, vectors.LedgerEntry{Check: id, Reason: "byte order"})
		}
		return l
	}
	cases := []struct {
		name string
		l    *vectors.Ledger
		ok   bool
	}{
		{"all listed", ledger(failing...), true},
		{"one unlisted", ledger(failing[1:]...), false},
		{"a passing vector listed", ledger(append(slices.Clone(failing), "fold/basic/started")...), false},
		{"an unknown id listed", ledger(append(slices.Clone(failing), "no/such/vector")...), false},
	}
	for _, tc := range cases {
		rep := vectors.Run(context.Background(), c, p, vectors.Config{Ledger: tc.l})
		if rep.OK() != tc.ok {
			t.Errorf("%s: Run OK = %v, want %v (ledger errors %q, counts %+v)", tc.name, rep.OK(), tc.ok, rep.LedgerErrors, rep.Counts())
		}
	}
}
