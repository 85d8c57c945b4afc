package certify

import (
	"fmt"
	"io"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/safetext"
)

// writeKernelCertificate writes a kernel certification's certificate: the verdict's headline, the
// kernel's handshake (implementation, versions, the optional features it serves), the counts, and
// a slow kernel's round-trip figures.
func writeKernelCertificate(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "loom kernel certificate — %s\n", safetext.Line(strings.Join(strings.Fields(Headline(r)), " ")))
	fmt.Fprintf(&b, "  verdict:        %s (exit %d)\n", r.Verdict, r.Verdict.ExitCode())
	fmt.Fprintf(&b, "  target:         %s\n", safetext.Line(r.Target.String()))
	k := r.Kernel
	if k == nil {
		fmt.Fprintf(&b, "  implementation: (no handshake)\n")
	} else {
		// the kernel names itself: shown, never obeyed (safetext)
		fmt.Fprintf(&b, "  implementation: %s %s\n", safetext.Line(k.Implementation.Name), safetext.Line(k.Implementation.Version))
		fmt.Fprintf(&b, "  versions:       wire %s, kernel ABI %s, event schema %s\n", safetext.Line(k.Wire), safetext.Line(k.KernelAbi), safetext.Line(k.EventSchema))
		features := "none (the Wave 2 checks were skipped)"
		if len(k.Features) > 0 {
			features = safetext.Line(strings.Join(k.Features, ", "))
		}
		ext := "not served (the goldens that need it were skipped)"
		if k.Conformance {
			ext = "served"
		}
		fmt.Fprintf(&b, "  Wave 2:         %s\n", features)
		fmt.Fprintf(&b, "  conformance extension: %s\n", ext)
	}
	writeRoundTrip(&b, r)
	for _, s := range r.Seams {
		if r.Verdict == TargetFailed && len(r.Checks) == 0 {
			break // nothing was judged: the one cause above says why
		}
		fmt.Fprintf(&b, "  %-15s %s %s\n", s.Seam+":", s.SpiVersion, SeamWords(s))
	}
	fmt.Fprintf(&b, "  checks:         %s\n", CountsLine(r))
	b.WriteString(notMetLines(r))
	b.WriteString(rerunLine(r))
	b.WriteString(contractLine(r))
	fmt.Fprintf(&b, "  harness:        loom-conform %s (wire ABI %s, kernel ABI %s, event schema %s), seed %d, %.1fs\n",
		r.Tool.Version, r.Spec["wireAbi"], r.Spec["kernelAbi"], r.Spec["eventSchema"], r.Options.Seed, r.DurationMs/1000)
	_, err := io.WriteString(w, b.String())
	return err
}
