package certify_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

func certifyKernel(t *testing.T, c *carrier.Carrier) *certify.Report {
	t.Helper()
	srv := httptest.NewServer(c)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := certify.RunKernel(ctx, certify.URLTarget{URL: srv.URL + "/"}, certify.Config{Kinds: []string{certify.KernelKind}, Seed: 11, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []func(*bytes.Buffer, *certify.Report) error{
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJSON(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteJUnit(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteHTML(b, r) },
		func(b *bytes.Buffer, r *certify.Report) error { return certify.WriteBadge(b, r) },
	} {
		var b bytes.Buffer
		if err := w(&b, rep); err != nil || b.Len() == 0 {
			t.Errorf("rendering the kernel report: %v (%d bytes)", err, b.Len())
		}
	}
	return rep
}

// certify kernel certifies the reference kernel behind serve-kernel's carrier and rejects every
// broken kernel by the check meant for it (I-WIRE-8).
func TestCertifyKernel(t *testing.T) {
	c, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := certifyKernel(t, c)
	if !rep.Certified() || rep.Summary.Pass != len(carrier.KernelKit().Checks) {
		t.Fatalf("certify/kernel [I-WIRE-8]: the reference kernel: certified=%v summary=%+v problems=%v checks=%+v", rep.Verdict, rep.Summary, rep.Problems, rep.Checks)
	}
	for _, b := range carrier.BrokenKernels() {
		t.Run(b.Name, func(t *testing.T) {
			c, err := carrier.NewBroken(b.Name, memory.NewEventStore(), carrier.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep := certifyKernel(t, c)
			if rep.Certified() {
				t.Fatalf("certify/kernel [I-WIRE-8]: broken kernel %s certified", b.Name)
			}
			for _, ch := range rep.Checks {
				if ch.ID == b.CaughtBy {
					if ch.Verdict != kits.Fail || !ch.Blocking {
						t.Errorf("certify/kernel [I-WIRE-8]: %s on %s = %s (blocking %v), want a blocking fail", ch.ID, b.Name, ch.Verdict, ch.Blocking)
					}
					return
				}
			}
			t.Errorf("certify/kernel: %s did not run", b.CaughtBy)
		})
	}
}
