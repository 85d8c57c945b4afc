package certify

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
)

// CheckSpiVersion refuses an SPI version this harness does not know for seam (I-CERT-5): the
// known range is 1.0.0 up to the seam's current version. A version in the range but below the
// current one is allowed; the run is then "held to" it, never certified.
func CheckSpiVersion(seam, v string) error {
	s, ok := manifest.LookupSpi(seam)
	if !ok {
		return fmt.Errorf("unknown seam %q", seam)
	}
	got, err := manifest.ParseVersion(v)
	if err != nil {
		return err
	}
	lo, hi := mustVersion("1.0.0"), mustVersion(s.Version)
	if got.Less(lo) || hi.Less(got) {
		return fmt.Errorf("%s SPI %s is not a version this harness knows (it knows %s %s..%s)", s.Name, v, s.Name, lo, hi)
	}
	return nil
}
