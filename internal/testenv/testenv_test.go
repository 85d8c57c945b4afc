package testenv

import (
	"testing"
)

// fakeTB records how Missing ended a test.
type fakeTB struct {
	testing.TB
	fatal, skip string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = format }
func (f *fakeTB) Skip(a ...any)                  { f.skip = "skip" }

func TestMissingFailsUnderCI(t *testing.T) {
	t.Setenv("CI", "true")
	f := &fakeTB{}
	Missing(f, "no node")
	if f.fatal == "" || f.skip != "" {
		t.Errorf("Missing under CI=true: fatal %q, skip %q; want a failure", f.fatal, f.skip)
	}
	t.Setenv("CI", "")
	f = &fakeTB{}
	Missing(f, "no node")
	if f.fatal != "" || f.skip == "" {
		t.Errorf("Missing outside CI: fatal %q, skip %q; want a skip", f.fatal, f.skip)
	}
}
