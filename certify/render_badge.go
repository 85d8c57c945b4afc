package certify

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// BadgeLabel is the badge's left half: "loom eventstore SPI 2.6.0" for one seam, "loom store SPIs"
// for several.
func BadgeLabel(r *Report) string {
	if len(r.Seams) == 1 {
		s := r.Seams[0]
		v := s.SpiVersion
		if v == "" {
			v = "?"
		}
		return fmt.Sprintf("loom %s SPI %s", s.Kit, v)
	}
	return "loom store SPIs"
}

// WriteBadge writes a flat SVG badge: the label, then the verdict's message on its colour
// (BadgeMessage): only a Certified run draws "certified" on green.
func WriteBadge(w io.Writer, r *Report) error {
	label := BadgeLabel(r)
	msg, color := BadgeMessage(r)
	lw, mw := textWidth(label)+10, textWidth(msg)+10
	tw := lw + mw
	esc := html.EscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, tw, esc(label), esc(msg))
	fmt.Fprintf(&b, `<title>%s: %s</title>`, esc(label), esc(msg))
	fmt.Fprintf(&b, `<linearGradient id="s" x2="0" y2="100%%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`, tw)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`, lw, lw, mw, color, tw)
	fmt.Fprintf(&b, `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text><text x="%d" y="14">%s</text></g></svg>`, lw/2, esc(label), lw+mw/2, esc(msg))
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
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
