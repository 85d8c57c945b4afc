package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/loom-kernel/loom-conform/internal/svgbadge"
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
// (BadgeMessage): only a Certified run draws "certified" on green. The badge carries the digest of
// the report's JSON (ReportDigest), so `badges check` can tell it from one edited into another
// verdict.
func WriteBadge(w io.Writer, r *Report) error {
	digest, err := ReportDigest(r)
	if err != nil {
		return err
	}
	msg, color := BadgeMessage(r)
	return svgbadge.Write(w, svgbadge.Badge{Label: BadgeLabel(r), Message: msg, Color: color, Digest: digest})
}

// ReportDigest is "sha256:<hex>" of the report as WriteJSON writes it: the bytes of its --report
// file.
func ReportDigest(r *Report) (string, error) {
	h := sha256.New()
	if err := WriteJSON(h, r); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
