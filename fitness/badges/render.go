package badges

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/loom-kernel/loom-conform/internal/svgbadge"
)

// MaturityColor is the colour a maturity is drawn in.
func MaturityColor(m Maturity) string {
	switch m {
	case Stable:
		return "#4c1"
	case Beta:
		return "#007ec6"
	}
	return "#fe7d37"
}

// WriteBadge draws a capability's badge: "loom <id>" and its maturity, carrying the digest of the
// capability's record (its claim and evidence as JSON), so a badge matches the claim it was drawn
// from.
func WriteBadge(w io.Writer, c Capability) error {
	rec, err := json.Marshal(c)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(rec)
	return svgbadge.Write(w, svgbadge.Badge{Label: "loom " + c.ID, Message: string(c.Maturity),
		Color: MaturityColor(c.Maturity), Digest: "sha256:" + hex.EncodeToString(sum[:])})
}
