package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

var (
	// inline links and images: [text](target "title"); reference definitions: [x]: target
	inlineLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\]\(([^()\s]+(?:\([^()\s]*\))?)(?:\s+"[^"]*")?\)`) })
	refDef     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s+(\S+)`) })
	heading    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`) })
	htmlAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`) })
	fence      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?ms)^\\s*(```|~~~).*?^\\s*(```|~~~)\\s*$") })
	codeSpan   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`[^`\n]*`") })
)

// Problem is one broken link.
type Problem struct {
	File   string // the Markdown file, relative to the root
	Line   int
	Target string
	Why    string
}

func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Why)
}

// Check reads every file of files (paths relative to root) and reports each relative link whose
// file does not exist or whose fragment names no heading of its target. Absolute URLs (http:,
// https:, mailto:) are not fetched: the check never uses the network.
func Check(root string, files []string) ([]Problem, error) {
	anchors := map[string]map[string]bool{} // cache by file
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return nil, err
		}
		a := Anchors(string(data))
		anchors[rel] = a
		return a, nil
	}
	var out []Problem
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		text := blankCode(string(data))
		var targets [][]int
		for _, m := range inlineLink().FindAllStringSubmatchIndex(text, -1) {
			targets = append(targets, m[2:4])
		}
		for _, m := range refDef().FindAllStringSubmatchIndex(text, -1) {
			targets = append(targets, m[2:4])
		}
		for _, t := range targets {
			target := text[t[0]:t[1]]
			line := 1 + strings.Count(text[:t[0]], "\n")
			if why := checkOne(root, f, target, anchorsOf); why != "" {
				out = append(out, Problem{File: f, Line: line, Target: target, Why: why})
			}
		}
	}
	return out, nil
}

func checkOne(root, from, target string, anchorsOf func(string) (map[string]bool, error)) string {
	u, err := url.Parse(target)
	if err != nil {
		return "not a URL: " + err.Error()
	}
	if u.Scheme != "" || u.Host != "" {
		return "" // an absolute URL: not checked offline
	}
	rel := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), u.Path)))
	if u.Path == "" {
		rel = from
	}
	if strings.HasPrefix(rel, "../") {
		return "points outside the repository"
	}
	st, err := os.Stat(filepath.Join(root, rel))
	if err != nil {
		return "no such file " + rel
	}
	if u.Fragment == "" {
		return ""
	}
	if st.IsDir() || !strings.HasSuffix(rel, ".md") {
		return "a fragment into " + rel + ", which is not a Markdown file"
	}
	a, err := anchorsOf(rel)
	if err != nil {
		return err.Error()
	}
	frag, _ := url.PathUnescape(u.Fragment)
	if !a[frag] {
		return fmt.Sprintf("no heading or anchor %q in %s", frag, rel)
	}
	return ""
}

// Anchors lists the fragments a Markdown document defines: the slug of every heading (a repeated
// slug gets -1, -2, … as on GitHub) and every <a id> or <a name>.
func Anchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading().FindAllStringSubmatch(blankCode(md), -1) {
		s := Slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	for _, m := range htmlAnchor().FindAllStringSubmatch(md, -1) {
		out[m[1]] = true
	}
	return out
}

// blankCode replaces fenced code blocks by blank lines (keeping line numbers) so that their
// contents are neither links nor headings. Code spans keep their text for headings (GitHub keeps
// the words of `code` in a slug) but lose their brackets, so a link written as code is not read.
func blankCode(md string) string {
	md = fence().ReplaceAllStringFunc(md, func(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) })
	return codeSpan().ReplaceAllStringFunc(md, func(s string) string {
		return strings.NewReplacer("[", " ", "]", " ", "(", " ", ")", " ").Replace(s)
	})
}
