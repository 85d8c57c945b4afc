package badges

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/svgbadge"
	"github.com/loom-kernel/loom-conform/manifest"
)

// Index is what evidence resolves against. The caller builds it from the kernel manifest, the
// check catalog and kits, the mutant registry, the fitness gates, the golden corpus and the
// deploy-simulation scenarios (cmd/loom-conform-full does; tests build small ones).
type Index struct {
	Versions  map[string]string // version constant -> value
	Checks    map[string]bool   // known check ids
	Proven    map[string]bool   // checks that rejected a registered mutant (in the proof records of a run, when given)
	Benches   map[string]bool   // fitness bench and ratio gate ids
	Goldens   map[string]bool
	Scenarios map[string]bool
	// Harness is this harness's version: a report from another major version is not evidence.
	Harness string
	// ReadFile reads a cited file (a path relative to the capabilities file).
	ReadFile func(path string) ([]byte, error)
}

// Problem is one claim without evidence, or one maturity rule a capability does not meet.
type Problem struct {
	Capability string `json:"capability"`
	Claim      string `json:"claim"`
	Reason     string `json:"reason"`
}

// String is the project's failure grammar.
func (p Problem) String() string {
	return fmt.Sprintf("badges/evidence [S10.badges.evidence]: Resolve(%s, %s) = %s", p.Capability, p.Claim, p.Reason)
}

// Check resolves every claim of every capability and applies the maturity rules: it returns one
// Problem per claim with no evidence and per rule not met (spec §10: maturity is self-checking).
func Check(f File, rules Rules, idx Index) []Problem {
	var out []Problem
	for _, c := range f.Capabilities {
		have := map[Kind]int{}
		bad := func(claim, reason string) {
			out = append(out, Problem{Capability: c.ID, Claim: claim, Reason: reason})
		}
		for _, v := range c.Evidence.Versions {
			name, want, pinned := strings.Cut(v, "=")
			got, ok := idx.Versions[name]
			switch {
			case !ok:
				bad("versions:"+v, "no such version constant in the kernel manifest, want kernelAbiVersion, eventSchemaVersion, wireAbiVersion, spi:<Name>, syscall:<name> or eventType:<TYPE>")
			case pinned && got != want:
				bad("versions:"+v, fmt.Sprintf("the manifest says %s, want %s", got, want))
			default:
				have[KindVersions]++
			}
		}
		for _, ch := range c.Evidence.Checks {
			switch {
			case !idx.Checks[ch]:
				bad("checks:"+ch, "no such check in the catalog or a kit")
			case idx.Proven[ch]:
				have[KindChecks]++
				have[KindProvenChecks]++
			default:
				have[KindChecks]++
			}
		}
		for kind, list := range map[Kind][]string{KindBenches: c.Evidence.Benches, KindGoldens: c.Evidence.Goldens, KindScenarios: c.Evidence.Scenarios} {
			known := map[Kind]map[string]bool{KindBenches: idx.Benches, KindGoldens: idx.Goldens, KindScenarios: idx.Scenarios}[kind]
			for _, id := range list {
				if known[id] {
					have[kind]++
				} else {
					bad(string(kind)+":"+id, "no such "+strings.TrimSuffix(string(kind), "s")+" in this harness")
				}
			}
		}
		for _, r := range c.Evidence.Reports {
			if reason := checkReport(r, idx); reason != "" {
				bad("reports:"+r.Report, reason)
			} else {
				have[KindReports]++
			}
		}
		for _, q := range rules[c.Maturity] {
			n := 0
			for _, k := range q.AnyOf {
				n += have[k]
			}
			if n < q.Min {
				bad("maturity:"+string(c.Maturity), fmt.Sprintf("%d resolved %s, want ≥ %d: %s", n, joinKinds(q.AnyOf), q.Min, q.Why))
			}
		}
	}
	return out
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " or ")
}

// checkReport says why a cited certification report is not evidence ("" when it is): it must be
// a well-formed report of a compatible harness whose verdict is certified — no waivers, no subset,
// no older SPI version — for the named seam (and version), and a cited badge must be the one drawn
// from exactly that report.
func checkReport(ref ReportRef, idx Index) string {
	data, err := idx.ReadFile(ref.Report)
	if err != nil {
		return fmt.Sprintf("cannot read the report: %v", err)
	}
	var r certify.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return fmt.Sprintf("not a certification report: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "not a certification report: text after the document"
	}
	if r.Tool.Name != "loom-conform" {
		return fmt.Sprintf("produced by %q, want loom-conform", r.Tool.Name)
	}
	if !sameMajor(r.Tool.Version, idx.Harness) {
		return fmt.Sprintf("produced by loom-conform %s, want a version compatible with %s (same major; below 1.0.0 the same minor)", r.Tool.Version, idx.Harness)
	}
	if r.Verdict != certify.Certified || r.Summary.Waivers > 0 || r.Options.Run != "" {
		msg, _ := certify.BadgeMessage(&r)
		return fmt.Sprintf("verdict %s (%s), want certified: a waived, partial, held or failed run is no evidence", r.Verdict, msg)
	}
	// The report's own verdict is a claim too: judge its checks again, as the run did.
	var again certify.Report
	if err := json.Unmarshal(data, &again); err != nil {
		return fmt.Sprintf("not a certification report: %v", err)
	}
	certify.Conclude(&again, nil, r.Started, nil)
	if again.Verdict != certify.Certified {
		return fmt.Sprintf("says certified, but its own checks judge it %s (%s): the report was edited", again.Verdict, strings.Join(again.Problems, "; "))
	}
	var seam *certify.SeamVerdict
	for i, s := range r.Seams {
		if strings.EqualFold(s.Seam, ref.Seam) || strings.EqualFold(s.Kit, ref.Seam) {
			seam = &r.Seams[i]
		}
	}
	switch {
	case seam == nil:
		return fmt.Sprintf("names no seam %q", ref.Seam)
	case !seam.Served || seam.Verdict != certify.Certified:
		return fmt.Sprintf("seam %s: verdict %q, want certified", ref.Seam, seam.Verdict)
	case ref.SpiVersion != "" && seam.SpiVersion != ref.SpiVersion:
		return fmt.Sprintf("seam %s was held to SPI %s, want %s", ref.Seam, seam.SpiVersion, ref.SpiVersion)
	case seam.Held():
		return fmt.Sprintf("seam %s was held to SPI %s, older than the current %s", ref.Seam, seam.SpiVersion, seam.Current)
	case idx.Versions["spi:"+seam.Seam] != "" && seam.Current != idx.Versions["spi:"+seam.Seam]:
		return fmt.Sprintf("seam %s: the report says the current SPI is %s, this harness says %s", ref.Seam, seam.Current, idx.Versions["spi:"+seam.Seam])
	}
	if ref.Badge == "" {
		return ""
	}
	svg, err := idx.ReadFile(ref.Badge)
	if err != nil {
		return fmt.Sprintf("cannot read the badge: %v", err)
	}
	b, err := svgbadge.Parse(svg)
	if err != nil {
		return fmt.Sprintf("badge %s: %v", ref.Badge, err)
	}
	sum := sha256.Sum256(data)
	msg, color := certify.BadgeMessage(&r)
	switch {
	case b.Digest != "sha256:"+hex.EncodeToString(sum[:]):
		return fmt.Sprintf("badge %s carries digest %q, which is not the report's: it was not drawn from this report", ref.Badge, b.Digest)
	case b.Label != certify.BadgeLabel(&r) || b.Message != msg || !strings.EqualFold(b.Color, color):
		return fmt.Sprintf("badge %s says %q: %q on %s, the report says %q: %q on %s", ref.Badge, b.Label, b.Message, b.Color, certify.BadgeLabel(&r), msg, color)
	}
	return ""
}

// sameMajor reports whether harness versions a and b are compatible: the same major version, and
// below 1.0.0 (where every minor may break, as semver allows) the same minor too. A development
// build (0.1.0-devel+3f2a1b0c9d8e) is of the line of the release it is heading for: its
// pre-release and build suffixes are not compared.
func sameMajor(a, b string) bool {
	va, err1 := manifest.ParseVersion(releaseCore(a))
	vb, err2 := manifest.ParseVersion(releaseCore(b))
	return err1 == nil && err2 == nil && va.Major == vb.Major && (va.Major > 0 || va.Minor == vb.Minor)
}

// releaseCore is MAJOR.MINOR.PATCH of a semver version, without a pre-release or build suffix.
func releaseCore(v string) string {
	if i := strings.IndexAny(v, "-+"); i >= 0 {
		return v[:i]
	}
	return v
}

// ManifestVersions returns the version constants a capability may cite, from the kernel manifest.
func ManifestVersions(m manifest.Manifest) map[string]string {
	v := map[string]string{
		"kernelAbiVersion":   m.KernelAbiVersion,
		"eventSchemaVersion": m.EventSchemaVersion,
		"wireAbiVersion":     m.WireAbiVersion,
	}
	for _, s := range m.Spis {
		v["spi:"+s.Name] = s.Version
	}
	for _, s := range m.Syscalls {
		v["syscall:"+s.Name] = s.Since
	}
	for _, e := range m.EventTypes {
		v["eventType:"+e.Name] = e.Since
	}
	return v
}
