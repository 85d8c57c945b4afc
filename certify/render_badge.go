package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/loom-kernel/loom-conform/internal/svgbadge"
)

// BadgeLabel is the badge's left half, naming exactly the surface the run judged (the served
// seams): "loom EventStore SPI 2.6.0" for one, with the optional methods it does not serve
// ("loom EventStore SPI 2.6.0 without deleteThrough, storeNow"), "loom 3 store SPIs" for several
// (the certificate lists them; ", 2 optional methods not served" when some are missing), "loom
// store SPIs" when none was served — then the message is never "certified". A seam the target did
// not serve is never named, so no badge claims a surface that was not judged. The conformance
// profile the run held the target to follows in parentheses ("loom kernel wire ABI 1.0.0 (kernel
// profile 2.0.0)", docs/contract-changelog.md).
func BadgeLabel(r *Report) string {
	label := seamsLabel(r)
	if l := r.ProfileLine(); l != "" {
		label += " (" + l + ")"
	}
	return label
}

// seamsLabel is the badge's label without the conformance profile.
func seamsLabel(r *Report) string {
	judged := JudgedSeams(r)
	switch len(judged) {
	case 0:
		return "loom store SPIs"
	case 1:
		return "loom " + seamVersion(judged[0]) + lacksWords(judged[0])
	}
	lacking := 0
	for _, s := range judged {
		lacking += len(s.Lacks)
	}
	if lacking > 0 {
		return fmt.Sprintf("loom %d store SPIs, %d optional %s not served", len(judged), lacking, plural(lacking, "method", "methods"))
	}
	return fmt.Sprintf("loom %d store SPIs", len(judged))
}

// JudgedSeams are the seams of r the target served, which the run judged, in report order.
func JudgedSeams(r *Report) []SeamVerdict {
	var out []SeamVerdict
	for _, s := range r.Seams {
		if s.Served {
			out = append(out, s)
		}
	}
	return out
}

// seamVersion is "EventStore SPI 2.6.0" ("?" for a version the target did not state).
func seamVersion(s SeamVerdict) string {
	v := s.SpiVersion
	if v == "" {
		v = "?"
	}
	if s.Kit == KernelKind {
		return s.Seam + " " + v // a wire protocol, not an SPI
	}
	return fmt.Sprintf("%s SPI %s", s.Seam, v)
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
