package badges

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
)

func testIndex(files map[string][]byte) Index {
	return Index{
		Versions:  ManifestVersions(manifest.KernelManifest()),
		Checks:    map[string]bool{"kernel/a": true, "kernel/proven": true},
		Proven:    map[string]bool{"kernel/proven": true},
		Benches:   map[string]bool{"g2/ratio": true},
		Goldens:   map[string]bool{"basic-steps": true},
		Scenarios: map[string]bool{},
		Harness:   "0.1.0",
		ReadFile: func(p string) ([]byte, error) {
			if b, ok := files[p]; ok {
				return b, nil
			}
			return nil, os.ErrNotExist
		},
	}
}

func mustRules(t *testing.T) Rules {
	t.Helper()
	r, err := DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func file(caps ...Capability) File { return File{Format: Format, Subject: "test", Capabilities: caps} }

func TestParseRefusesMalformed(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"stable","evidence":{},"extra":1}]}`, "extra"},
		{`{"format":"loom-capabilities/9","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"stable","evidence":{}}]}`, "format"},
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"stable","evidence":{}},{"id":"a","title":"A","maturity":"beta","evidence":{}}]}`, "capabilities[1] (a): id: duplicate"},
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"gold","evidence":{}}]}`, "maturity \"gold\""},
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"beta","evidence":{"reports":[{"report":"r.json"}]}}]}`, "seam are required"},
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[]}`, "empty"},
		{`[1,2]`, "want {"},
		{`{"format":"loom-capabilities/1","subject":"s","capabilities":[{"id":"a","title":"A","maturity":"beta","evidence":{}}]} {}`, "after the document"},
	} {
		if _, err := Parse([]byte(tc.doc), "caps.json"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("badges/parse-strict [S10.badges.evidence]: Parse(%s) = %v, want an error naming %q", tc.doc, err, tc.want)
		}
	}
}

// Reference: spec §10 — a badge claiming evidence it does not have fails, naming the capability
// and each claim.
func TestClaimsWithoutEvidenceFail(t *testing.T) {
	c := Capability{ID: "syscall/execute", Title: "execute", Maturity: Experimental, Evidence: Evidence{
		Versions: []string{"kernelAbiVersion=9.9.9", "nope"}, Checks: []string{"kernel/a", "kernel/missing"},
		Benches: []string{"perf/nothing"}, Goldens: []string{"no-such-golden"}, Scenarios: []string{"rolling"},
	}}
	got := Check(file(c), mustRules(t), testIndex(nil))
	var claims []string
	for _, p := range got {
		claims = append(claims, p.Claim)
		if !strings.HasPrefix(p.String(), "badges/evidence [S10.badges.evidence]: Resolve(syscall/execute, ") {
			t.Errorf("problem %q does not follow the failure grammar", p)
		}
	}
	want := []string{"versions:kernelAbiVersion=9.9.9", "versions:nope", "checks:kernel/missing", "benches:perf/nothing", "goldens:no-such-golden", "scenarios:rolling"}
	for _, w := range want {
		if !strings.Contains(strings.Join(claims, "|"), w) {
			t.Errorf("badges/claims-resolved [S10.badges.evidence]: Check(...) claims %v, want one naming %s", claims, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Check(...) = %d problems %v, want exactly %d (the resolved claims are fine)", len(got), claims, len(want))
	}
}

func TestMaturityRules(t *testing.T) {
	rules := mustRules(t)
	idx := testIndex(nil)
	ok := Evidence{Versions: []string{"syscall:execute"}, Checks: []string{"kernel/proven"}, Goldens: []string{"basic-steps"}}
	for _, tc := range []struct {
		name string
		m    Maturity
		e    Evidence
		want string // "" = no problem
	}{
		{"stable with everything", Stable, ok, ""},
		{"stable without a golden or bench", Stable, Evidence{Versions: ok.Versions, Checks: ok.Checks}, "maturity:stable"},
		{"stable with an unproven check", Stable, Evidence{Versions: ok.Versions, Checks: []string{"kernel/a"}, Benches: []string{"g2/ratio"}}, "provenChecks"},
		{"beta without a version", Beta, Evidence{Checks: ok.Checks}, "versions"},
		{"experimental with one check", Experimental, Evidence{Checks: []string{"kernel/a"}}, ""},
		{"experimental with nothing", Experimental, Evidence{}, "maturity:experimental"},
	} {
		got := Check(file(Capability{ID: "c", Title: "C", Maturity: tc.m, Evidence: tc.e}), rules, idx)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("badges/maturity-rules [S10.badges.evidence]: Check(%s) = %v, want no problem", tc.name, got)
		case tc.want != "" && (len(got) == 0 || !strings.Contains(fmt.Sprint(got), tc.want)):
			t.Errorf("badges/maturity-rules [S10.badges.evidence]: Check(%s) = %v, want a problem naming %s", tc.name, got, tc.want)
		}
	}
}

// report renders a certification report as certify writes it, and the badge drawn from it.
func report(t *testing.T, mutate func(*certify.Report)) (data, svg []byte) {
	t.Helper()
	r := &certify.Report{
		Tool:    certify.Tool{Name: "loom-conform", Version: "0.1.0"},
		Kinds:   []string{"eventstore"},
		Seams:   []certify.SeamVerdict{{Seam: "EventStore", Kit: "eventstore", SpiVersion: "2.6.0", Current: "2.6.0", Served: true, Verdict: certify.Certified}},
		Checks:  []certify.CheckResult{{ID: "eventstore/append-conflict", Kit: "eventstore", Level: spec.Must, Verdict: kits.Pass}},
		Verdict: certify.Certified,
	}
	if mutate != nil {
		mutate(r)
	}
	var j, b bytes.Buffer
	if err := certify.WriteJSON(&j, r); err != nil {
		t.Fatal(err)
	}
	if err := certify.WriteBadge(&b, r); err != nil {
		t.Fatal(err)
	}
	return j.Bytes(), b.Bytes()
}

// Third parties cite certification reports: only a clean certificate of the named seam is
// evidence, and a badge must be the one drawn from that very report.
func TestReportEvidence(t *testing.T) {
	good, goodSVG := report(t, nil)
	waived, waivedSVG := report(t, func(r *certify.Report) { r.Verdict = certify.CertifiedWithWaivers; r.Summary.Waivers = 3 })
	partial, _ := report(t, func(r *certify.Report) { r.Verdict = certify.Partial; r.Options.Run = "fence" })
	failing, _ := report(t, func(r *certify.Report) {
		r.Checks = []certify.CheckResult{{ID: "eventstore/append-conflict", Kit: "eventstore", Level: spec.Must, Verdict: kits.Fail}}
	})
	empty, _ := report(t, func(r *certify.Report) { r.Checks = nil })
	held, _ := report(t, func(r *certify.Report) { r.Seams[0].SpiVersion = "2.5.0" })
	lowered, _ := report(t, func(r *certify.Report) { r.Seams[0].SpiVersion, r.Seams[0].Current = "2.5.0", "2.5.0" })
	foreign, _ := report(t, func(r *certify.Report) { r.Tool.Version = "0.2.0" })
	devel, _ := report(t, func(r *certify.Report) { r.Tool.Version = "0.1.0-devel+3f2a1b0c9d8e.dirty" })
	foreignDevel, _ := report(t, func(r *certify.Report) { r.Tool.Version = "0.2.0-devel" })
	_, otherSVG := report(t, func(r *certify.Report) { r.Target.Spec = "another store" })
	edited := bytes.ReplaceAll(waivedSVG, []byte("certified with 3 waivers"), []byte("certified"))
	edited = bytes.ReplaceAll(edited, []byte("#dfb317"), []byte("#4c1"))
	files := map[string][]byte{
		"good.json": good, "good.svg": goodSVG, "waived.json": waived, "waived-edited.svg": edited,
		"partial.json": partial, "foreign.json": foreign, "devel.json": devel, "foreign-devel.json": foreignDevel, "failing.json": failing, "empty.json": empty, "held.json": held, "lowered.json": lowered, "other.svg": otherSVG, "garbage.json": []byte(`{"tool":`),
	}
	idx := testIndex(files)
	cap := func(refs ...ReportRef) File {
		return file(Capability{ID: "store/eventstore", Title: "EventStore", Maturity: Beta,
			Evidence: Evidence{Versions: []string{"spi:EventStore"}, Reports: refs}})
	}
	if got := Check(cap(ReportRef{Report: "good.json", Seam: "eventstore", SpiVersion: "2.6.0", Badge: "good.svg"}), mustRules(t), idx); len(got) > 0 {
		t.Errorf("badges/reports-as-evidence [S10.badges.evidence]: Check(a clean certificate and its badge) = %v, want no problem", got)
	}
	// A development build of the same release line (0.1.0-devel+commit) made the report: evidence
	// too; one heading for another line is not (I-CERT-20).
	if got := Check(cap(ReportRef{Report: "devel.json", Seam: "eventstore"}), mustRules(t), idx); len(got) > 0 {
		t.Errorf("badges/reports-as-evidence [I-CERT-20]: Check(a certificate by 0.1.0-devel) = %v, want no problem", got)
	}
	if got := Check(cap(ReportRef{Report: "foreign-devel.json", Seam: "eventstore"}), mustRules(t), idx); !strings.Contains(fmt.Sprint(got), "same major") {
		t.Errorf("badges/reports-as-evidence [I-CERT-20]: Check(a certificate by 0.2.0-devel) = %v, want a problem naming the version", got)
	} else {
		proof.Rejected(t, "badge/evidence/foreign-harness", "badges/reports-as-evidence", proof.Failure("badges/reports-as-evidence", []string{"I-CERT-20"}, "Check(a certificate by 0.2.0-devel)", got[0].String()))
	}
	for _, tc := range []struct {
		mutant, name string
		ref          ReportRef
		want         string
	}{
		{"badge/evidence/waived-certificate", "waived certificate", ReportRef{Report: "waived.json", Seam: "eventstore"}, "certified-with-waivers"},
		{"badge/evidence/partial-certificate", "partial run", ReportRef{Report: "partial.json", Seam: "eventstore"}, "partial"},
		{"badge/evidence/foreign-harness", "another harness major", ReportRef{Report: "foreign.json", Seam: "eventstore"}, "same major"},
		{"badge/evidence/verdict-edited", "a report whose MUST check failed, its verdict edited to certified", ReportRef{Report: "failing.json", Seam: "eventstore"}, "its own checks judge it not-certified"},
		{"badge/evidence/nothing-judged", "a certified report that ran no check", ReportRef{Report: "empty.json", Seam: "eventstore"}, "its own checks judge it not-certified"},
		{"badge/evidence/held-seam", "a seam held to an older SPI, cited without a version", ReportRef{Report: "held.json", Seam: "eventstore"}, "held-to-older-version"},
		{"badge/evidence/current-lowered", "a report that lowers the current SPI version to look unheld", ReportRef{Report: "lowered.json", Seam: "eventstore"}, "this harness says 2.6.0"},
		{"badge/evidence/wrong-seam", "another seam", ReportRef{Report: "good.json", Seam: "snapshotstore"}, "names no seam"},
		{"badge/evidence/older-spi", "another SPI version", ReportRef{Report: "good.json", Seam: "eventstore", SpiVersion: "2.7.0"}, "held to SPI 2.6.0"},
		{"badge/evidence/edited-badge", "badge edited into another verdict", ReportRef{Report: "waived.json", Seam: "eventstore", Badge: "waived-edited.svg"}, "certified-with-waivers"},
		{"badge/evidence/borrowed-badge", "badge of another report", ReportRef{Report: "good.json", Seam: "eventstore", Badge: "other.svg"}, "not drawn from this report"},
		{"badge/evidence/malformed-report", "malformed report", ReportRef{Report: "garbage.json", Seam: "eventstore"}, "not a certification report"},
		{"badge/evidence/missing-report", "missing report", ReportRef{Report: "nope.json", Seam: "eventstore"}, "cannot read"},
	} {
		got := Check(cap(tc.ref), mustRules(t), idx)
		if len(got) == 0 || !strings.Contains(fmt.Sprint(got), tc.want) {
			t.Errorf("badges/reports-as-evidence [S10.badges.evidence]: Check(%s) = %v, want a problem naming %q", tc.name, got, tc.want)
			continue
		}
		proof.Rejected(t, tc.mutant, "badges/reports-as-evidence", proof.Failure("badges/reports-as-evidence", nil, "Check("+tc.name+")", got[0].String()))
	}
	// The edited badge alone (its report claimed as clean) is refused for its digest.
	files["good-edited.svg"] = bytes.ReplaceAll(goodSVG, []byte("loom EventStore SPI 2.6.0"), []byte("loom EventStore SPI 2.7.0"))
	if got := Check(cap(ReportRef{Report: "good.json", Seam: "eventstore", Badge: "good-edited.svg"}), mustRules(t), idx); len(got) == 0 {
		t.Error("badges/reports-as-evidence [S10.badges.evidence]: Check(a badge whose label was edited) = no problem, want refused")
	}
}
