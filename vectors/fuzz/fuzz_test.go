package fuzz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/internal/testenv"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/vectors/fuzz"
	"github.com/loom-kernel/loom-conform/vectors/internal/foreignfold"
)

// The test binary doubles as the foreign fold (vectors/testdata/foreignfold): started with
// foreignFoldArg first, it serves the line protocol.
const foreignFoldArg = "-vectors.foreignfold"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == foreignFoldArg {
		os.Exit(foreignfold.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func foreign(t *testing.T, args ...string) *vectors.Process {
	t.Helper()
	p, err := vectors.NewProcess(append([]string{os.Args[0], foreignFoldArg}, args...), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Reference: ADR 0026 (fold vectors for foreign folds), I-FOLD-22 — a foreign fold with one
// deliberate deviation (integral numbers spelled 0.0 refused, as encoding/json into int64 does) is
// found within 10 000 logs and shrunk to a one-envelope vector that the reference passes, the
// deviant fold fails, and a person only has to give a reason and clauses.
func TestFuzzFindsAndShrinksDeviation(t *testing.T) {
	const mutant, check = "fold/vectors/foreign-strict-integers", "vectors/fuzz-finds-deviation"
	proof.Registered(t, fuzz.Mutants(), "vectors/fuzz:TestFuzzFindsAndShrinksDeviation", []string{mutant})
	res, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 1, Count: 10000}, vectors.Reference{}, foreign(t, "-bug", "strict-integers"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Classes) == 0 {
		t.Fatalf("%s [I-FOLD-22 A26.vectors.language-agnostic]: Run(strict-integers, 10 000 logs) = no disagreement, want one", check)
	}
	f := res.Classes[0].Finding
	t.Logf("found after %d logs (seed %d), shrunk in %d fold pairs from %d to %d envelopes\n%s\n%s", res.Logs, f.Seed, f.Shrinks,
		len(f.Original.Events), len(f.Minimal.Events), f.Summary(), f.VectorFile())
	if len(f.Minimal.Events) > 1 || f.Minimal.Snapshot != nil {
		t.Errorf("%s [I-FOLD-22]: minimal case = %d envelopes (snapshot %t), want one envelope and no snapshot", check, len(f.Minimal.Events), f.Minimal.Snapshot != nil)
	}
	if f.Got.Error != vectors.ErrInvalidEnvelope || f.Want.Output == nil {
		t.Errorf("%s [I-FOLD-22]: minimal answers = reference %+v, under test %+v; want a state and invalid-envelope", check, f.Want, f.Got)
	}
	if !strings.Contains(f.Reproduce("x --bug y"), "--seed ") || !strings.Contains(f.Reproduce("it's"), `'it'\''s'`) {
		t.Errorf("%s: Reproduce = %q, want a quoted --exec and the seed", check, f.Reproduce("it's"))
	}
	// The file is refused until a person fills reason and clauses, then it is a vector that tells
	// the two folds apart.
	file := f.VectorFile()
	if _, err := vectors.Parse(file, f.FileName()); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("%s: Parse(unfilled vector) = %v, want a refusal naming reason", check, err)
	}
	filled := bytes.Replace(bytes.Replace(file, []byte(`"reason": ""`), []byte(`"reason": "integral spellings are integers"`), 1),
		[]byte(`"clauses": []`), []byte(`"clauses": ["I-FOLD-22"]`), 1)
	v, err := vectors.Parse(filled, f.FileName())
	if err != nil {
		t.Fatalf("%s: Parse(filled vector) = %v\n%s", check, err, filled)
	}
	for _, c := range []struct {
		name   string
		folder vectors.Folder
		want   vectors.Verdict
	}{{"reference", vectors.Reference{}, vectors.Pass}, {"strict-integers", foreign(t, "-bug", "strict-integers"), vectors.Fail}} {
		rep := vectors.Run(context.Background(), vectors.Corpus{Vectors: []vectors.Vector{v}}, c.folder, vectors.Config{})
		if got := rep.Results[0].Verdict; got != c.want {
			t.Errorf("%s: Run(%s, the shrunk vector) = %s, want %s", check, c.name, got, c.want)
		}
	}
	proof.Rejected(t, mutant, check, proof.Failure(check, nil, "fuzz.Run(the deviant fold)", f.Summary()))
}

// Reference: ADR 0026 — the reference served over the protocol (what `vectors --serve` runs)
// agrees with the reference in process on every generated log, hostile ones included: the
// fuzzer never blames a correct fold. `make fuzz-self` runs 100 000 logs through the CLI.
func TestFuzzReferenceAgreesWithItself(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	res, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 1_000_000, Count: n}, vectors.Reference{}, foreign(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Classes) != 0 || res.Disagreements != 0 || res.Failure != nil || res.Logs != n {
		t.Fatalf("vectors/fuzz-self-agrees [A26.vectors.language-agnostic]: Run(reference, reference) = %d logs, %d disagreements, failure %v", res.Logs, res.Disagreements, res.Failure)
	}
}

// Reference: I-FOLD-22 — generation is a pure function of (seed, profile),
// and over a fixed seed set it produces each kind of hostility it exists for: malformed
// envelopes and snapshots, extreme numbers, odd Unicode, __proto__ (escaped too), a carry holding
// a __proto__.
func TestGenerateDeterministicAndHostile(t *testing.T) {
	seen := map[string]int{}
	cfg := fuzz.Config{}
	for s := uint64(0); s < 600; s++ {
		a, b := fuzz.Generate(s, cfg.ProfileOf(s)), fuzz.Generate(s, cfg.ProfileOf(s))
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("vectors/fuzz-generate: Generate(%d) twice differs", s)
		}
		if a.Snapshot != nil {
			seen["snapshot"]++
		}
		want := vectors.Reference{}
		r, _ := want.Answer(context.Background(), a.Request("x"))
		if r.Error != "" {
			seen["refused:"+r.Error]++
		}
		for _, e := range a.Events {
			s := string(e)
			for _, h := range []string{"1e308", `\ud800`, "__proto__", "1e400", `\u005f_proto__`, `":-0`} {
				if strings.Contains(s, h) {
					seen["value:"+h]++
				}
			}
			if strings.Contains(s, `"carry":`) && strings.Contains(s, "proto__") {
				seen["carry with __proto__"]++
			}
		}
	}
	for _, k := range []string{"snapshot", "refused:invalid-envelope", "refused:sequence", "refused:invalid-snapshot", "refused:mixed-executions",
		"value:1e308", `value:\ud800`, "value:__proto__", "value:1e400", `value:\u005f_proto__`, `value:":-0`, "carry with __proto__"} {
		if seen[k] == 0 {
			t.Errorf("vectors/fuzz-generate: over 600 seeds %q never occurs (seen %v)", k, seen)
		}
	}
}

// Reference: ADR 0026 — the shrinker keeps the log dense and ends where no step still disagrees.
func TestShrinkToMinimal(t *testing.T) {
	c := fuzz.Generate(7, fold.Current())
	for s := uint64(100); len(c.Events) < 6; s++ { // the first log of at least six envelopes
		c = fuzz.Generate(s, fold.Current())
	}
	c.Snapshot = nil
	// Disagree whenever some STEP_* or EXECUTION_STARTED envelope is present and the log folds.
	disagree := func(c fuzz.Case) bool {
		r, _ := vectors.Reference{}.Answer(context.Background(), c.Request("x"))
		if r.Output == nil {
			return false
		}
		for _, e := range c.Events {
			if strings.Contains(string(e), `"EXECUTION_STARTED"`) {
				return true
			}
		}
		return false
	}
	if !disagree(c) {
		t.Fatal("vectors/fuzz-shrink: the seed log does not fold, want one the generator makes foldable (only hostile logs refuse)")
	}
	m := fuzz.Shrink(c, disagree)
	if len(m.Events) != 1 || !disagree(m) {
		t.Fatalf("vectors/fuzz-shrink: Shrink = %d envelopes %s, want the one EXECUTION_STARTED", len(m.Events), m.Events)
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(m.Events[0], &env) != nil || string(env["sequence"]) != "0" || string(env["payload"]) != "{}" {
		t.Errorf("vectors/fuzz-shrink: Shrink = %s, want sequence 0 and payload {}", m.Events[0])
	}
}

// Reference: ADR 0026, I-FOLD-22 — the example JavaScript foreign fold
// (vectors/testdata/foreignfold/deviant-fold.js) with its one deliberate deviation (numeric
// strings read as integers) is found within 10 000 logs and shrunk to one envelope the reference
// refuses as invalid-envelope. Needs node; required when CI=true.
func TestFuzzFindsJavaScriptDeviation(t *testing.T) {
	const mutant, check = "fold/vectors/foreign-js-numeric-strings", "vectors/fuzz-finds-js-deviation"
	proof.Registered(t, fuzz.Mutants(), "vectors/fuzz:TestFuzzFindsJavaScriptDeviation", []string{mutant})
	node := testenv.LookPath(t, "node", "install Node.js to run the JavaScript deviant fold")
	p, err := vectors.NewProcess([]string{node, "../testdata/foreignfold/deviant-fold.js", os.Args[0], foreignFoldArg}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := fuzz.Run(context.Background(), fuzz.Config{Seed: 1, Count: 10000}, vectors.Reference{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Classes) == 0 {
		t.Fatalf("%s [I-FOLD-22]: Run(deviant-fold.js, 10 000 logs) = no disagreement, want one", check)
	}
	f := res.Classes[0].Finding
	t.Logf("found after %d logs, shrunk in %d fold pairs\n%s", res.Logs, f.Shrinks, f.VectorFile())
	var env map[string]json.RawMessage
	if len(f.Minimal.Events) != 1 || json.Unmarshal(f.Minimal.Events[0], &env) != nil ||
		!(strings.HasPrefix(string(env["sequence"]), `"`) || strings.HasPrefix(string(env["timestamp"]), `"`)) {
		t.Errorf("%s [I-FOLD-22]: minimal case = %s, want one envelope with a string sequence or timestamp", check, f.Minimal.Events)
	}
	if f.Want.Error != vectors.ErrInvalidEnvelope || f.Got.Error == vectors.ErrInvalidEnvelope {
		t.Errorf("%s [I-FOLD-22]: minimal answers = reference %+v, under test %+v; want invalid-envelope from the reference only", check, f.Want, f.Got)
	}
	proof.Rejected(t, mutant, check, proof.Failure(check, nil, "fuzz.Run(the deviant fold)", f.Summary()))
}
