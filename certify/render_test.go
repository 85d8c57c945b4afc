package certify_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

func sampleReport(certified bool) *certify.Report {
	r := &certify.Report{
		Tool: certify.Tool{Name: "loom-conform", Version: "test"}, Spec: map[string]string{"kernelAbi": "1.3.0", "eventSchema": "1.26.0", "bridgeProtocol": "1.0.0"},
		Kinds: []string{"eventstore"}, Started: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC),
		Target:    certify.Identity{Kind: "image", Spec: "acme/store:1", ImageID: "sha256:0123456789abcdef0123456789"},
		Handshake: &bridge.Handshake{Protocol: "1.0.0", Implementation: bridge.Implementation{Name: "acme <store>", Version: "1"}},
		Seams:     []certify.SeamVerdict{{Seam: "EventStore", Kit: "eventstore", SpiVersion: "2.6.0", Current: "2.6.0", Served: true}},
		Checks: []certify.CheckResult{
			{Kit: "eventstore", ID: "eventstore/append-conflict", Clauses: []string{"I-STORE-1"}, Level: spec.Must, Verdict: kits.Pass, DurationMs: 3},
			{Kit: "eventstore", ID: "eventstore/read-range-bounds", Clauses: []string{"I-STORE-5"}, Level: spec.Must, Verdict: kits.Fail,
				Message: "ReadRange = x, want y\n(-want +got):\n- <script>alert(1)</script>", Blocking: !certified, Why: "a MUST check failed",
				Repro: "loom-conform certify eventstore --image acme/store:1 --run '^eventstore/read-range-bounds$' --seed 7"},
			{Kit: "eventstore", ID: "eventstore/store-now", Clauses: []string{"I-STORE-9"}, Level: spec.Should, Verdict: kits.Skip, Message: "not declared"},
			{Kit: "eventstore", ID: "eventstore/linearizable", Clauses: []string{"I-STORE-14"}, Level: spec.Must, Verdict: kits.Unknown, Message: "timed out", Blocking: !certified},
		},
	}
	var ledger *certify.Ledger
	if certified {
		ledger = &certify.Ledger{Entries: []certify.Expectation{{Check: "eventstore/read-range-bounds", Reason: "known"}}}
		r.Checks[1].Level = spec.Should // a waived MUST failure would make it certified-with-waivers
		r.Checks[3].Verdict = kits.Pass
	}
	certify.Conclude(r, ledger, r.Started, nil)
	return r
}

// Every renderer produces its format from the same report, escapes what the store said, and tells
// certified from not.
func TestReportsRender(t *testing.T) {
	for _, certified := range []bool{false, true} {
		r := sampleReport(certified)
		var js, ju, ht, bd, txt, cert bytes.Buffer
		for name, err := range map[string]error{
			"json": certify.WriteJSON(&js, r), "junit": certify.WriteJUnit(&ju, r), "html": certify.WriteHTML(&ht, r),
			"badge": certify.WriteBadge(&bd, r), "summary": certify.WriteSummary(&txt, r), "certificate": certify.WriteCertificate(&cert, r),
		} {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		var back certify.Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Certified() != certified || len(back.Checks) != 4 || back.Target.ImageID == "" {
			t.Errorf("WriteJSON round trip = %v, %+v", err, back)
		}
		var suites struct {
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Skipped  int `xml:"skipped,attr"`
		}
		if err := xml.Unmarshal(ju.Bytes(), &suites); err != nil {
			t.Fatalf("WriteJUnit: %v\n%s", err, ju.String())
		}
		// the verdict case fails too when the run is not a certificate (I-CERT-11)
		wantFail, wantErr := 2, 1
		if certified {
			wantFail, wantErr = 0, 0
		}
		if suites.Failures != wantFail || suites.Errors != wantErr || suites.Skipped != 1 {
			t.Errorf("WriteJUnit(certified=%v) = %+v, want %d failures, %d errors, 1 skipped", certified, suites, wantFail, wantErr)
		}
		h := ht.String()
		if strings.Contains(h, "<script>alert") || !strings.Contains(h, "&lt;script&gt;alert") || strings.Contains(h, "acme <store>") {
			t.Errorf("WriteHTML does not escape the store's text")
		}
		if !strings.Contains(h, "I-STORE-5") || !strings.Contains(h, "(-want &#43;got)") {
			t.Errorf("WriteHTML lacks the clause matrix or the diff")
		}
		b := bd.String()
		color, word := "#e05d44", ">not certified<"
		if certified {
			color, word = "#4c1", ">certified, 1 recommendation not met<" // the listed SHOULD failure
		}
		if !strings.Contains(b, "loom EventStore SPI 2.6.0") || !strings.Contains(b, color) || !strings.Contains(b, word) || !strings.HasPrefix(b, "<svg") {
			t.Errorf("WriteBadge(certified=%v) = %s", certified, b)
		}
		if err := xml.Unmarshal(bd.Bytes(), new(struct{})); err != nil {
			t.Errorf("WriteBadge is not well-formed XML: %v", err)
		}
		wantCert := "NOT CERTIFIED"
		if certified {
			wantCert = "— CERTIFIED"
		}
		if !strings.Contains(cert.String(), wantCert) || !strings.Contains(cert.String(), "EventStore:") {
			t.Errorf("WriteCertificate = %s", cert.String())
		}
		if !strings.Contains(txt.String(), "eventstore/read-range-bounds") || !strings.Contains(txt.String(), "reproduce:") {
			t.Errorf("WriteSummary lacks the failure and its reproducing command:\n%s", txt.String())
		}
	}
}

// Failures that share one difference are named once, with their checks.
func TestWriteCausesGroupsOneDifference(t *testing.T) {
	r := &certify.Report{Verdict: certify.NotCertified}
	for _, id := range []string{"eventstore/a", "eventstore/b", "eventstore/c"} {
		r.Checks = append(r.Checks, certify.CheckResult{Kit: "eventstore", ID: id, Verdict: kits.Fail, Blocking: true, Level: spec.Must,
			Message: id + " [I-STORE-3]: Read(\"kit-" + id + "\") = other content, want same\n(-want +got):\ndiffers at /0/metadata\n  [\n    {\n-     \"metadata\": {},\n      \"sequence\": 0\n    }\n  ]"})
	}
	r.Checks = append(r.Checks, certify.CheckResult{Kit: "eventstore", ID: "eventstore/d", Verdict: kits.Fail, Blocking: true, Message: "eventstore/d [I-STORE-1]: Append() = conflict, want nil"})
	var b bytes.Buffer
	if err := certify.WriteCauses(&b, r); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "3 checks fail with one difference: -     \"metadata\": {}, — eventstore/a, eventstore/b, eventstore/c\n" {
		t.Errorf("WriteCauses = %q", got)
	}
}
