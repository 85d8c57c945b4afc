package doclinks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/doclinks"
)

// TestDocLinks checks every relative link of README.md, CHANGELOG.md and docs/*.md (`make lint`).
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{"README.md", "CHANGELOG.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		files = append(files, filepath.ToSlash(rel))
	}
	problems, err := doclinks.Check(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// The checker finds what it is for: a missing file, a missing heading, and not a link in code.
func TestCheckFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.md", "# B\n\n## The `fakes` — of effects\n\n<a id=\"I-X-1\"></a>\n## Repeated\n## Repeated\n")
	write("a.md", strings.Join([]string{
		"[ok](b.md#the-fakes--of-effects) [ok](b.md#I-X-1) [ok](b.md#repeated-1) [ok](#a) [ok](https://example.com/x#y)",
		"[missing file](c.md) [missing heading](b.md#fakes)",
		"`[in code](nowhere.md)`",
		"```", "[in a fence](nowhere.md)", "```",
		"# A",
	}, "\n"))
	problems, err := doclinks.Check(dir, []string{"a.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`a.md:2: c.md: no such file c.md`,
		`a.md:2: b.md#fakes: no heading or anchor "fakes" in b.md`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"I-FOLD-1 — the fold refuses a log, or whose payload/metadata is not JSON": "i-fold-1--the-fold-refuses-a-log-or-whose-payloadmetadata-is-not-json",
		"`certify eventstore|all TARGET`":                                          "certify-eventstoreall-target",
		"Résumé 10^6 × 2":                                                          "résumé-106--2",
	} {
		if got := doclinks.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
