package kits

import (
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func versionClaim[T any](c *Case[T], seam string) error {
	claim, ok := spi.ClaimedVersion(seam, any(c.Store))
	if !ok {
		return c.Skip("the target states no %s SPI version (it is held to the current one)", seam)
	}
	v, err := manifest.ParseVersion(claim)
	if err != nil {
		return c.Failf(seam+"SpiVersion", "", claim, "MAJOR.MINOR.PATCH")
	}
	s, _ := manifest.LookupSpi(seam)
	cur, _ := manifest.ParseVersion(s.Version)
	if v.Major != cur.Major || cur.Less(v) {
		return c.Failf(seam+"SpiVersion", "", claim, fmt.Sprintf("%d.x.y, at most %s", cur.Major, cur))
	}
	return nil
}
