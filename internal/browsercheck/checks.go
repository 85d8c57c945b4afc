package browsercheck

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/doclinks"
)

// docsLink is a link into the published docs/ directory at some ref (a commit, a tag, main), as
// report pages write them (reportview.DocsBase); CheckCommon resolves such links against the
// repository's own docs/.
var docsLink = regexp.MustCompile(`^https://github\.com/loom-kernel/loom-conform/blob/[^/]+/docs/`)

// landmarksJS lists what is missing of the page's landmarks and labelled sections.
const landmarksJS = `(() => {
  const miss = [];
  for (const sel of ["header", "nav", "main", "footer", "h1"]) if (!document.querySelector(sel)) miss.push("no " + sel);
  for (const s of document.querySelectorAll("section[aria-labelledby]")) {
    if (!document.getElementById(s.getAttribute("aria-labelledby"))) miss.push("section " + s.id + " is labelled by a missing element");
  }
  if (!document.documentElement.lang) miss.push("no lang on <html>");
  return miss;
})()`

// linksJS lists every link target as written, and the in-page ones that name no element.
const linksJS = `(() => {
  const out = {hrefs: [], broken: []};
  for (const a of document.querySelectorAll("a[href]")) {
    const h = a.getAttribute("href");
    if (h.startsWith("#")) {
      if (!document.getElementById(decodeURIComponent(h.slice(1)))) out.broken.push(h);
    } else out.hrefs.push(h);
  }
  return out;
})()`

// contrastJS lists visible text whose colour against its background is below WCAG AA (4.5:1,
// 3:1 for large text).
const contrastJS = `(() => {
  const parse = c => { const m = /rgba?\(([^)]+)\)/.exec(c); if (!m) return null; const p = m[1].split(",").map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const bg = el => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const bad = [], seen = new Set();
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) {
    const n = w.currentNode, el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || el.getClientRects().length === 0) continue;
    const fg = parse(cs.color), b = bg(el), l1 = lum(fg), l2 = lum(b);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(cs.fontSize), bold = parseInt(cs.fontWeight, 10) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    if (ratio < need) bad.push(el.tagName.toLowerCase() + "." + el.className + ": " + ratio.toFixed(2) + " < " + need + " (" + JSON.stringify(n.textContent.trim().slice(0, 40)) + ")");
  }
  return bad.slice(0, 20);
})()`

// CheckCommon checks what every report page must hold: no console error, exception or network
// request; header, nav, main, footer and labelled sections; every link resolving inside the page,
// to a file beside it, or into this repository's docs/ (file and heading); AA text contrast.
// repoRoot is the repository's root directory.
func (p *Page) CheckCommon(t testing.TB, repoRoot string) {
	t.Helper()
	var miss []string
	p.Eval(t, landmarksJS, &miss)
	for _, m := range miss {
		t.Errorf("%s: landmarks: %s", p.file, m)
	}
	var links struct {
		Hrefs  []string `json:"hrefs"`
		Broken []string `json:"broken"`
	}
	p.Eval(t, linksJS, &links)
	for _, b := range links.Broken {
		t.Errorf("%s: link %s names no element of the page", p.file, b)
	}
	anchors := map[string]map[string]bool{}
	for _, h := range links.Hrefs {
		if why := resolve(p.file, repoRoot, h, anchors); why != "" {
			t.Errorf("%s: link %s: %s", p.file, h, why)
		}
	}
	var bad []string
	p.Eval(t, contrastJS, &bad)
	for _, b := range bad {
		t.Errorf("%s: contrast: %s", p.file, b)
	}
	for _, pr := range p.Problems() {
		t.Errorf("%s: %s", p.file, pr)
	}
}

// resolve says why href does not resolve ("" when it does).
func resolve(file, repoRoot, href string, anchors map[string]map[string]bool) string {
	u, err := url.Parse(href)
	if err != nil {
		return err.Error()
	}
	var path string
	switch {
	case docsLink.MatchString(href):
		path = filepath.Join(repoRoot, "docs", filepath.FromSlash(strings.TrimPrefix(strings.SplitN(href, "#", 2)[0], docsLink.FindString(href))))
	case u.Scheme == "" && u.Host == "":
		path = filepath.Join(filepath.Dir(file), filepath.FromSlash(u.Path))
	default:
		return "leaves the page for a site other than this repository's docs"
	}
	if _, err := os.Stat(path); err != nil {
		return "no such file " + path
	}
	if u.Fragment == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	a, ok := anchors[path]
	if !ok {
		data, err := os.ReadFile(path)
		if err != nil {
			return err.Error()
		}
		a = doclinks.Anchors(string(data))
		anchors[path] = a
	}
	if !a[u.Fragment] {
		return "no heading " + u.Fragment + " in " + path
	}
	return ""
}
