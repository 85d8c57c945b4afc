package certify_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// surfaces renders every surface of rep that carries a check's message.
func surfaces(t *testing.T, rep *certify.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	var b bytes.Buffer
	_ = certify.WriteSummary(&b, rep)
	out["summary"] = b.String()
	for name, w := range map[string]func(*bytes.Buffer, *certify.Report) error{
		"json":  func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJSON(b, r) },
		"junit": func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJUnit(b, r) },
		"html":  func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteHTML(b, r) },
	} {
		var b bytes.Buffer
		if err := w(&b, rep); err != nil {
			t.Fatal(err)
		}
		out[name] = b.String()
	}
	return out
}

// Reference: I-CERT-50 — a kernel check's failure ends with its setup, the calls the check made
// before the failing one with their answers as decoded JSON, on every surface: a kernel author
// sees that a start came before the refused syscall without reading the kit.
func TestKernelFailureSaysSetup(t *testing.T) {
	h, err := kernelkit.NewBroken("args-to-kernel", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := certifyKernel(t, h, certify.Config{Run: "^kernel/errors/args-shape$"})
	if len(rep.Checks) != 1 || rep.Checks[0].Verdict != kits.Fail {
		t.Fatalf("certify/kernel-failure-setup [I-CERT-50]: %+v, want kernel/errors/args-shape failed", rep.Checks)
	}
	msg := rep.Checks[0].Message
	for _, want := range []string{"setup — the check's calls, oldest first", `execution.start {"flowId":"kit.shape","input":"shape"} → {"driver":"…"`, `syscall.execute {"args":{"input":1}} → error -32026 (syscall)`} {
		if !strings.Contains(msg, want) {
			t.Errorf("certify/kernel-failure-setup [I-CERT-50]: message lacks %q:\n%s", want, msg)
		}
	}
	for name, s := range surfaces(t, rep) {
		if !strings.Contains(s, "setup") || !strings.Contains(s, "execution.start") {
			t.Errorf("certify/kernel-failure-setup [I-CERT-50]: the %s surface does not carry the setup", name)
		}
	}
}

// Reference: I-CERT-51 — a check cut short by its time limit names its slowest call (or the call
// still unanswered), the median of its calls and the kernel's median round trip, and says to raise
// --timeout; its setup follows.
func TestKernelTimeoutNamesSlowestCall(t *testing.T) {
	ref := reference(t, kernel.Features{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(25 * time.Millisecond)
		ref.ServeHTTP(w, r)
	})
	rep := certifyKernel(t, slow, certify.Config{Run: "^kernel/golden/parallel-nested$", Timeout: 150 * time.Millisecond})
	if len(rep.Checks) != 1 || rep.Checks[0].Verdict != kits.Unknown {
		t.Fatalf("certify/kernel-timeout-named [I-CERT-51]: %+v, want the golden cut short (unknown)", rep.Checks)
	}
	msg := rep.Checks[0].Message
	for _, want := range []string{"slowest call", "the median call of this check took", "the kernel's median round trip before the checks was", "--timeout", "setup —"} {
		if !strings.Contains(msg, want) {
			t.Errorf("certify/kernel-timeout-named [I-CERT-51]: message lacks %q:\n%s", want, msg)
		}
	}
}

// Reference: I-CERT-10 — the certificate on standard output names each recommendation not met,
// not only their number.
func TestCertificateNamesUnmetRecommendations(t *testing.T) {
	h, err := kernelkit.NewBroken("sleep-own-gate", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := certifyKernel(t, h, certify.Config{Run: "^kernel/syscall/(timer-gate|sleep)$"})
	var b bytes.Buffer
	if err := certify.WriteCertificate(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "not met:        1 recommendation") || !strings.Contains(b.String(), "    kernel/syscall/timer-gate [I-KERNEL-7]") {
		t.Errorf("certify/certificate-names-recommendations [I-CERT-10]: verdict %s, certificate:\n%s\nwant kernel/syscall/timer-gate named", rep.Verdict, b.String())
	}
}

// Reference: I-CERT-52 — every surface of a certification names the conformance profile the run held
// the target to: the certificate, the JSON report, the JUnit properties, the HTML page and the badge.
func TestProfileOnEverySurface(t *testing.T) {
	rep := certifyKernel(t, reference(t, kernel.Features{}), certify.Config{Run: "^kernel/handshake/versions$"})
	v := certify.ProfileVersion(certify.ProfileKernel)
	if v == "" || rep.Profiles[certify.ProfileKernel] != v {
		t.Fatalf("certify/profile-on-surfaces [I-CERT-52]: report profiles %v, want kernel %q", rep.Profiles, v)
	}
	want := map[string]string{
		"json":  `"profiles": {` + "\n" + `    "kernel": "` + v + `"`,
		"junit": `name="loom.profile.kernel" value="` + v + `"`,
		"html":  "kernel profile " + v,
	}
	got := surfaces(t, rep)
	var b bytes.Buffer
	_ = certify.WriteCertificate(&b, rep)
	got["certificate"], want["certificate"] = b.String(), "contract:       kernel profile "+v
	b.Reset()
	_ = certify.WriteBadge(&b, rep)
	got["badge"], want["badge"] = b.String(), "(kernel profile "+v+")"
	for name, w := range want {
		if !strings.Contains(got[name], w) {
			t.Errorf("certify/profile-on-surfaces [I-CERT-52]: the %s does not name the kernel profile (%q):\n%s", name, w, got[name])
		}
	}
}
