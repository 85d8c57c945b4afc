// Package svgbadge writes and reads the project's one badge form: a flat shields-style SVG with a
// label, a message on a colour, and a digest of the evidence it was drawn from, so that a badge
// edited into another verdict no longer matches its evidence.
//
//	err := svgbadge.Write(w, svgbadge.Badge{Label: "loom eventstore SPI 2.6.0", Message: "certified",
//		Color: "#4c1", Digest: "sha256:…"})
//	b, err := svgbadge.Parse(svg)
package svgbadge

import (
	"github.com/loom-kernel/loom-conform/internal/safetext"

	"encoding/xml"
	"fmt"
	"html"
	"io"
	"strings"
)

// Badge is what a badge says and the digest of what it was drawn from.
type Badge struct {
	Label   string
	Message string
	Color   string
	// Digest names the evidence, "sha256:<hex>"; empty writes no metadata.
	Digest string
}

const digestPrefix = "loom-digest "

// Write writes b as a flat SVG badge.
func Write(w io.Writer, b Badge) error {
	// Text a target supplied (an SPI version it claims) is made visible: a control character is
	// not XML, and an SVG that does not parse is no badge.
	b.Label, b.Message = safetext.Line(b.Label), safetext.Line(b.Message)
	lw, mw := textWidth(b.Label)+10, textWidth(b.Message)+10
	tw := lw + mw
	esc := html.EscapeString
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, tw, esc(b.Label), esc(b.Message))
	fmt.Fprintf(&s, `<title>%s: %s</title>`, esc(b.Label), esc(b.Message))
	if b.Digest != "" {
		fmt.Fprintf(&s, `<metadata>%s%s</metadata>`, digestPrefix, esc(b.Digest))
	}
	s.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&s, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, tw)
	fmt.Fprintf(&s, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`, lw, lw, mw, esc(b.Color), tw)
	s.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&s, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`, lw/2, esc(b.Label), lw+mw/2, esc(b.Message))
	s.WriteString("\n")
	_, err := io.WriteString(w, s.String())
	return err
}

// Parse reads a badge written by Write: its label and message from the drawn texts, its colour
// from the message's rectangle, and its digest. Drawn text and title must agree (a badge edited in
// one place only is refused).
func Parse(svg []byte) (Badge, error) {
	var doc struct {
		XMLName  xml.Name `xml:"svg"`
		Title    string   `xml:"title"`
		Metadata string   `xml:"metadata"`
		Groups   []struct {
			Rects []struct {
				Fill string `xml:"fill,attr"`
			} `xml:"rect"`
			Texts []string `xml:"text"`
		} `xml:"g"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil {
		return Badge{}, fmt.Errorf("badge: not an SVG document: %w", err)
	}
	var b Badge
	for _, g := range doc.Groups {
		if len(g.Texts) == 2 {
			b.Label, b.Message = g.Texts[0], g.Texts[1]
		}
		if len(g.Rects) == 3 {
			b.Color = g.Rects[1].Fill
		}
	}
	if b.Label == "" || b.Message == "" {
		return Badge{}, fmt.Errorf("badge: no label and message texts")
	}
	if doc.Title != b.Label+": "+b.Message {
		return Badge{}, fmt.Errorf("badge: title %q disagrees with the drawn texts %q: %q", doc.Title, b.Label, b.Message)
	}
	if m := strings.TrimSpace(doc.Metadata); m != "" {
		if !strings.HasPrefix(m, digestPrefix) {
			return Badge{}, fmt.Errorf("badge: metadata %q is not a loom digest", m)
		}
		b.Digest = strings.TrimPrefix(m, digestPrefix)
	}
	return b, nil
}

// textWidth approximates Verdana 11px text width.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case strings.ContainsRune("il.:|' ", r):
			w += 4
		case r >= 'A' && r <= 'Z', r == 'm', r == 'w':
			w += 9
		default:
			w += 7
		}
	}
	return w
}
