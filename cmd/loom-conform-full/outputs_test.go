package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: I-CERT-40 — every verb that writes files refuses, before its run (exit 2, naming the
// flags), two outputs that are one file, a link to a file, a dangling link and a read-only file;
// the files already there are left as they were.
func TestOutputsRefusedBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, err := range []error{
		os.WriteFile(p("same.json"), []byte("keep"), 0o644),
		os.Symlink(p("same.json"), p("alias.xml")),
		os.Link(p("same.json"), p("hard.xml")),
		os.WriteFile(p("ro.json"), []byte("keep"), 0o444),
		os.Symlink(p("ro.json"), p("victim.json")),
		os.Symlink(p("gone.json"), p("dangling.json")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	certify := []string{"certify", "eventstore", "--builtin", "memory"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{append(certify, "--report", p("same.json"), "--junit", p("hard.xml")), []string{"--report " + p("same.json"), "--junit " + p("hard.xml"), "are the same file"}},
		{append(certify, "--report", p("same.json"), "--junit", p("alias.xml")), []string{"--junit " + p("alias.xml"), "is a symbolic link to " + p("same.json")}},
		{append(certify, "--report", p("victim.json")), []string{"--report " + p("victim.json"), "is a symbolic link to " + p("ro.json")}},
		{append(certify, "--html", p("ro.json")), []string{"--html " + p("ro.json"), "is read-only (mode -r--r--r--)"}},
		{append(certify, "--badge", p("dangling.json")), []string{"--badge", "dangling"}},
		{append(certify, "--write-ledger", p("r.json"), "--report", dir+"/./r.json"), []string{"--write-ledger", "--report", "are the same file"}},
		{[]string{"vectors", "--report", p("v.json"), "--junit", p("v.json")}, []string{"--report", "--junit", "are the same file"}},
		{[]string{"goldens", "check", "--corpus", "../../goldens/corpus", "--junit", p("g.xml"), "--html", p("g.xml")}, []string{"--junit", "--html", "are the same file"}},
		{[]string{"goldens", "check", "--corpus", "../../goldens/corpus", "--junit", p("alias.xml")}, []string{"--junit", "symbolic link"}},
		{[]string{"deploysim", "--seed", "1", "--junit", p("alias.xml")}, []string{"--junit", "symbolic link"}},
		{[]string{"fitness", "--root", "../..", "--json", p("f.json"), "--junit", p("f.json")}, []string{"--json", "--junit", "are the same file"}},
		{[]string{"report", "matrix", "--html", p("ro.json"), "a.json"}, []string{"--html", "read-only"}},
		{[]string{"report", "merge", "--out", p("alias.xml"), "a.json"}, []string{"--out", "symbolic link"}},
	} {
		code, _, stderr := runCLI(t, "", c.args...)
		if code != 2 {
			t.Errorf("%v = exit %d, want 2; stderr %q", c.args, code, lastLine(stderr))
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q, want %q in it", c.args, lastLine(stderr), w)
			}
		}
	}
	for _, f := range []string{"same.json", "ro.json"} {
		if b, _ := os.ReadFile(p(f)); string(b) != "keep" {
			t.Errorf("%s holds %q after the refused runs, want it untouched", f, b)
		}
	}
	if _, err := os.Stat(p("r.json")); err == nil {
		t.Error("a refused run left r.json behind")
	}
}
