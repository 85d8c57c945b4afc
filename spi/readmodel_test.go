package spi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spi"
)

// TestDecodeCursorRefusesEveryAlteration: a reference cursor changed in any one character is not
// one the store issued, including a change to the last character of its base64 part that only
// touches padding bits a lenient decoder ignores.
func TestDecodeCursorRefusesEveryAlteration(t *testing.T) {
	const model = "orders"
	// After ids of three lengths, so the base64 part ends on every padding-bit width.
	for _, after := range []string{"id-1", "id-12", "id-123"} {
		cur := spi.EncodeCursor(model, after)
		if got, err := spi.DecodeCursor(model, cur); err != nil || got != after {
			t.Fatalf("DecodeCursor(%q, %q) = %q, %v, want %q, nil", model, cur, got, err, after)
		}
		enc, _, _ := strings.Cut(cur, ".")
		for i := range len(cur) {
			alt := []byte(cur)
			switch c := alt[i]; {
			case c >= 'a' && c < 'z', c >= 'A' && c < 'Z', c >= '0' && c < '9':
				alt[i]++
			default:
				continue
			}
			if got, err := spi.DecodeCursor(model, string(alt)); !errors.Is(err, spi.ErrInvalidArgument) {
				t.Errorf("DecodeCursor(%q, %q) (character %d of %q changed, base64 part %d long) = %q, %v, want an invalid-argument error",
					model, alt, i, cur, len(enc), got, err)
			}
		}
	}
}
