package certify_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Reference: I-NET-8 — what a target names itself and says (implementation name and version, a
// claimed SPI version, messages, the cause of a failed start) reaches the terminal, the
// certificate, the JUnit report and the badge as visible text: no escape sequence clears the
// screen or retitles the window, no bidirectional override reorders a line, and the XML formats
// stay XML.
func TestTargetTextIsEscaped(t *testing.T) {
	const evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
	r := sampleReport(false)
	r.Handshake.Implementation.Name = "acme" + evil
	r.Handshake.Implementation.Version = "1\nverdict:        certified"
	r.Seams[0].SpiVersion = "2.6.0" + evil
	r.Checks[1].Message = "store said: " + evil
	r.Checks[3].Message = "timed out" + evil
	r.Problems = append(r.Problems, "problem"+evil)
	var cert, sum, ju, bd bytes.Buffer
	for name, err := range map[string]error{
		"certificate": certify.WriteCertificate(&cert, r), "summary": certify.WriteSummary(&sum, r),
		"junit": certify.WriteJUnit(&ju, r), "badge": certify.WriteBadge(&bd, r),
	} {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for name, out := range map[string]string{"certificate": cert.String(), "summary": sum.String(), "junit": ju.String(), "badge": bd.String()} {
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%s holds a raw control character from the target: %q", name, out)
		}
		if !strings.Contains(out, `\x1b`) {
			t.Errorf("%s does not show the escape the target sent (\\x1b)", name)
		}
	}
	if strings.Contains(cert.String(), "\nverdict:        certified") {
		t.Errorf("a newline in the implementation's version forged a certificate line:\n%s", cert.String())
	}
	for name, b := range map[string][]byte{"junit": ju.Bytes(), "badge": bd.Bytes()} {
		if err := xml.Unmarshal(b, new(struct{})); err != nil {
			t.Errorf("%s is not XML: %v", name, err)
		}
	}
}

// Reference: I-NET-8 — the HTML page shows a target's escape sequences and bidirectional
// overrides as text too (html/template escapes markup, not control characters).
func TestHTMLShowsTargetControlCharacters(t *testing.T) {
	r := sampleReport(false)
	r.Handshake.Implementation.Name = "acme\x1b[2J\u202e"
	r.Checks[1].Message = "store said \x1b]0;pwned\x07"
	var b bytes.Buffer
	if err := certify.WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07\u202e") || !strings.Contains(b.String(), `\x1b`) {
		t.Errorf("the HTML page holds a raw control character from the target, or does not show it")
	}
}

// Reference: I-NET-8 — a kernel's certificate shows what the kernel names itself as text.
func TestKernelCertificateEscapesTargetText(t *testing.T) {
	r := sampleReport(false)
	r.Kinds = []string{certify.KernelKind}
	r.Kernel = &certify.KernelInfo{Implementation: carrier.Implementation{Name: "k\x1b[2J", Version: "1\nverdict: certified"},
		Wire: "1.0.0\u202e", KernelAbi: "1.3.0", EventSchema: "1.26.0", Features: []string{"receive\x07"}}
	var b bytes.Buffer
	if err := certify.WriteCertificate(&b, r); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Contains(out, "\nverdict: certified") {
		t.Errorf("the kernel certificate obeys the kernel's text:\n%q", out)
	}
}
