package proof

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeT records failures without ending the real test, so Rejected's refusals can be observed.
type fakeT struct {
	testing.TB
	failed   bool
	cleanups []func()
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Name() string          { return "fake" }
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Failed() bool          { return f.failed }
func (f *fakeT) Cleanup(fn func())     { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) end() {
	for _, fn := range f.cleanups {
		fn()
	}
}

// A kill is recorded only with evidence and only when the test passed; a survivor fails the test.
func TestRejectedRecordsOnlyRealKills(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, dir)

	ok := &fakeT{TB: t}
	Rejected(ok, "m/a/1", "c/1", errors.New("c/1 [X]: Op() = 1, want 2\nmore"))
	ok.end()

	survived := &fakeT{TB: t}
	Rejected(survived, "m/a/2", "c/1", nil)
	survived.end()
	if !survived.failed {
		t.Error("Rejected(nil evidence) did not fail the test")
	}
	empty := &fakeT{TB: t}
	Rejected(empty, "m/a/3", "c/1", "  ")
	empty.end()
	if !empty.failed {
		t.Error("Rejected(empty message) did not fail the test")
	}
	var nilErr error
	typedNil := &fakeT{TB: t}
	Rejected(typedNil, "m/a/5", "c/1", nilErr)
	typedNil.end()
	if !typedNil.failed {
		t.Error("Rejected(nil error) did not fail the test")
	}

	failedLater := &fakeT{TB: t}
	Rejected(failedLater, "m/a/4", "c/1", "c/1 failed")
	failedLater.failed = true
	failedLater.end()

	recs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Mutant != "m/a/1" || recs[0].Check != "c/1" || recs[0].Evidence != "c/1 [X]: Op() = 1, want 2" || recs[0].Test != "fake" {
		t.Fatalf("Read = %+v, want exactly the one real kill, evidence cut to its first line", recs)
	}
	if ks := Kills(recs); len(ks) != 1 || ks[0].Mutant != "m/a/1" || ks[0].Check != "c/1" {
		t.Errorf("Kills = %+v", ks)
	}
}

// Unset, nothing is written anywhere.
func TestRejectedUnsetWritesNothing(t *testing.T) {
	t.Setenv(Env, "")
	f := &fakeT{TB: t}
	Rejected(f, "m/a/1", "c/1", "c/1 failed")
	if len(f.cleanups) != 0 || f.failed {
		t.Errorf("with %s unset Rejected registered %d cleanups, failed=%v", Env, len(f.cleanups), f.failed)
	}
}

// Malformed files and missing directories are errors naming what is wrong.
func TestReadRefusesBadRecords(t *testing.T) {
	if _, err := Read(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("Read(missing dir) = nil error")
	}
	for name, line := range map[string]string{
		"not json":      "{",
		"unknown field": `{"mutant":"m","check":"c","evidence":"e","extra":1}`,
		"no evidence":   `{"mutant":"m","check":"c"}`,
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "p.jsonl"), []byte(line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); err == nil {
			t.Errorf("Read(%s) = nil error", name)
		}
	}
}
