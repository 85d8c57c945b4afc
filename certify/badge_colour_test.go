package certify

import (
	"math"
	"strconv"
	"testing"
)

// Only a certificate is drawn in green: every other verdict's badge colour is far from it (an
// olive "held to" badge read as certified at a glance).
func TestBadgeColoursFarFromCertified(t *testing.T) {
	rgb := func(hex string) [3]float64 {
		if len(hex) == 4 { // #rgb
			hex = "#" + string([]byte{hex[1], hex[1], hex[2], hex[2], hex[3], hex[3]})
		}
		var c [3]float64
		for i := range c {
			v, err := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
			if err != nil {
				t.Fatalf("colour %q: %v", hex, err)
			}
			c[i] = float64(v)
		}
		return c
	}
	seams := []SeamVerdict{{Seam: "EventStore", Kit: "eventstore", SpiVersion: "1.0.0", Current: "2.6.0", Served: true}}
	_, green := BadgeMessage(&Report{Verdict: Certified, Seams: seams})
	g := rgb(green)
	for _, v := range Verdicts() {
		if v == Certified {
			continue
		}
		_, c := BadgeMessage(&Report{Verdict: v, Seams: seams, Summary: Summary{Waivers: 1}})
		x := rgb(c)
		if d := math.Sqrt((x[0]-g[0])*(x[0]-g[0]) + (x[1]-g[1])*(x[1]-g[1]) + (x[2]-g[2])*(x[2]-g[2])); d < 150 {
			t.Errorf("certify/badge-colours: %s is drawn %s, %.0f from the certified %s (want at least 150 apart)", v, c, d, green)
		}
	}
}
