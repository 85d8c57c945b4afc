package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// Reference: I-CERT-40 — an output is written whole or not at all: a write that fails half way
// leaves the old file as it was and no temporary file behind; a finished one replaces the file
// and keeps its permissions.
func TestWrittenWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte("old report"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := func(w io.Writer) error {
		_, _ = io.WriteString(w, "half a rep")
		return errors.New("renderer failed")
	}
	err := WriteAll([]Output{{Flag: "--report", Path: path, Write: broken}}, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "--report "+path) || !strings.Contains(err.Error(), "renderer failed") {
		t.Fatalf("WriteAll(a failing renderer) = %v, want the flag, path and cause", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old report" {
		t.Fatalf("after a failed write the file holds %q, want the old report", b)
	}
	if err := WriteAll([]Output{{Flag: "--report", Path: path, Write: text("new report")}}, io.Discard, func(b []byte) []byte {
		return []byte(strings.ReplaceAll(string(b), "new", "NEW"))
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "NEW report" {
		t.Fatalf("the file holds %q, want the filtered new report", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode after the rewrite = %s, want the file's own 0600", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d files, want only the report (no temporary file left)", len(entries))
	}
}

// Reference: I-CERT-40 — before a run, outputs that are one file are refused naming both flags;
// a link to a file, a dangling link, a directory, a read-only file and a missing folder are
// refused saying so; a stream is written in place.
func TestCheckRefusesWhatCannotBeWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(p("same.json"), []byte("x"), 0o644))
	must(os.Symlink(p("same.json"), p("alias.xml")))
	must(os.Link(p("same.json"), p("hard.xml")))
	must(os.Symlink(p("nowhere.json"), p("dangling.json")))
	must(os.WriteFile(p("ro.json"), []byte("x"), 0o444))
	must(os.Mkdir(p("sub"), 0o755))
	must(os.Symlink(p("sub"), p("subl")))
	for _, c := range []struct {
		name string
		outs []Output
		want []string // all in the error; none = no error
	}{
		{"one path twice", []Output{{Flag: "--report", Path: p("a.json")}, {Flag: "--junit", Path: dir + "/./a.json"}}, []string{"--report", "--junit", "are the same file"}},
		{"a hard link", []Output{{Flag: "--report", Path: p("same.json")}, {Flag: "--junit", Path: p("hard.xml")}}, []string{"--report", "--junit", "are the same file"}},
		{"through a linked folder", []Output{{Flag: "--html", Path: p("sub/r.html")}, {Flag: "--badge", Path: p("subl/r.html")}}, []string{"--html", "--badge", "are the same file"}},
		{"a link to a file", []Output{{Flag: "--report", Path: p("same.json")}, {Flag: "--junit", Path: p("alias.xml")}}, []string{"--junit", "is a symbolic link to " + p("same.json"), "name the file itself"}},
		{"a dangling link", []Output{{Flag: "--report", Path: p("dangling.json")}}, []string{"--report", "dangling", "does not exist"}},
		{"a read-only file", []Output{{Flag: "--report", Path: p("ro.json")}}, []string{"--report", "read-only", "-r--r--r--"}},
		{"a directory", []Output{{Flag: "--html", Path: p("sub")}}, []string{"--html", "is a directory"}},
		{"no folder", []Output{{Flag: "--badge", Path: p("no/such/b.svg")}}, []string{"--badge", "does not exist"}},
		{"stdout twice", []Output{{Flag: "--report", Path: "-"}, {Flag: "--junit", Path: "-"}}, []string{"--junit", "already writes to stdout"}},
		{"a stream", []Output{{Flag: "--report", Path: os.DevNull}, {Flag: "--junit", Path: p("j.xml")}}, nil},
		{"one stream twice", []Output{{Flag: "--report", Path: os.DevNull}, {Flag: "--junit", Path: os.DevNull}}, []string{"--report", "--junit", "are the same file"}},
		{"distinct files", []Output{{Flag: "--report", Path: p("same.json")}, {Flag: "--junit", Path: p("j.xml")}, {Flag: "--html", Path: "-"}}, nil},
	} {
		err := Check(c.outs, nil)
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s: Check = %v, want nil", c.name, err)
			}
			continue
		}
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Check = %v, want %q in it", c.name, err, w)
			}
		}
	}
	// Nothing was left behind by the checks, and nothing was changed.
	if b, _ := os.ReadFile(p("same.json")); string(b) != "x" {
		t.Errorf("same.json = %q after the checks", b)
	}
	if _, err := os.Stat(p("a.json")); err == nil {
		t.Error("Check created a.json")
	}
}

// Reference: I-CERT-40 — a stream is written in place; a link made during the run is refused at
// the write, never written through, and the file it points to is untouched.
func TestWriteStreamsAndLinksMadeLater(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("discarded")); err != nil {
		t.Fatalf("WriteFile(%s) = %v", os.DevNull, err)
	}
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.json")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "r.json")
	if err := Check([]Output{{Flag: "--report", Path: link}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, link); err != nil { // made while the run ran
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("report")); !errors.Is(err, ErrLink) {
		t.Fatalf("WriteFile(a link made during the run) = %v, want ErrLink", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the link's target holds %q, want it untouched", b)
	}
}
