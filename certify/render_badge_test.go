package certify

import (
	"strings"
	"testing"
)

// Reference: I-CERT-9 — the badge label and the headline name exactly the served seams: one by
// name and version, several by number (listed in the headline), none never as a certificate; a
// seam asked for but not served is named as not judged and never in the label.
func TestBadgeNamesJudgedSeams(t *testing.T) {
	seam := func(name, v string, served bool) SeamVerdict {
		return SeamVerdict{Seam: name, Kit: strings.ToLower(name), SpiVersion: v, Current: v, Served: served}
	}
	cases := []struct {
		name      string
		seams     []SeamVerdict
		verdict   Verdict
		label     string
		headline  string
		notInSide []string
	}{
		{"one of three served", []SeamVerdict{seam("EventStore", "2.6.0", true), seam("SnapshotStore", "", false), seam("ArchiveStore", "", false)},
			Certified, "loom EventStore SPI 2.6.0", "CERTIFIED: EventStore SPI 2.6.0 (not served, so not judged: SnapshotStore, ArchiveStore)", []string{"SnapshotStore", "store SPIs"}},
		{"three served", []SeamVerdict{seam("EventStore", "2.6.0", true), seam("SnapshotStore", "1.2.0", true), seam("ArchiveStore", "1.0.0", true)},
			Certified, "loom 3 store SPIs", "CERTIFIED: 3 store SPIs (EventStore 2.6.0, SnapshotStore 1.2.0, ArchiveStore 1.0.0)", nil},
		{"two of three served with a waiver", []SeamVerdict{seam("EventStore", "2.6.0", true), seam("SnapshotStore", "1.2.0", true), seam("ArchiveStore", "", false)},
			CertifiedWithWaivers, "loom 2 store SPIs", "CERTIFIED WITH 1 WAIVER (failures excused by the expected-failures ledger): 2 store SPIs (EventStore 2.6.0, SnapshotStore 1.2.0) (not served, so not judged: ArchiveStore)", []string{"ArchiveStore"}},
		{"none served", []SeamVerdict{seam("EventStore", "", false)}, NotCertified, "loom store SPIs", "NOT CERTIFIED", nil},
	}
	for _, c := range cases {
		r := &Report{Seams: c.seams, Verdict: c.verdict, Summary: Summary{Waivers: 1}}
		if got := BadgeLabel(r); got != c.label {
			t.Errorf("certify/badge-names-judged-seams [I-CERT-9]: BadgeLabel(%s) = %q, want %q", c.name, got, c.label)
		}
		for _, x := range c.notInSide {
			if strings.Contains(BadgeLabel(r), x) {
				t.Errorf("certify/badge-names-judged-seams [I-CERT-9]: BadgeLabel(%s) = %q, want no %q", c.name, BadgeLabel(r), x)
			}
		}
		if got := Headline(r); got != c.headline {
			t.Errorf("certify/badge-names-judged-seams [I-CERT-9]: Headline(%s) = %q, want %q", c.name, got, c.headline)
		}
	}
}

// The badge names the surface judged: a seam's unserved optional methods are on its label
// (issue: "CERTIFIED: EventStore SPI 2.6.0" for a store serving neither deleteThrough nor storeNow).
func TestBadgeNamesLackingMethods(t *testing.T) {
	one := &Report{Seams: []SeamVerdict{{Seam: "EventStore", SpiVersion: "2.6.0", Served: true, Lacks: []string{"deleteThrough", "storeNow"}}}}
	if got, want := BadgeLabel(one), "loom EventStore SPI 2.6.0 without deleteThrough, storeNow"; got != want {
		t.Errorf("BadgeLabel = %q, want %q", got, want)
	}
	one.Verdict = Certified
	if h := Headline(one); !strings.Contains(h, "EventStore SPI 2.6.0 without deleteThrough, storeNow") {
		t.Errorf("Headline = %q, want the lacking methods named", h)
	}
	two := &Report{Seams: []SeamVerdict{one.Seams[0], {Seam: "SnapshotStore", SpiVersion: "1.3.0", Served: true}}}
	if got, want := BadgeLabel(two), "loom 2 store SPIs, 2 optional methods not served"; got != want {
		t.Errorf("BadgeLabel = %q, want %q", got, want)
	}
}
