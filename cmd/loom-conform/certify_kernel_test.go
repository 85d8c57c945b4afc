package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/kernelkit"
)

// certify kernel --url exits 0 for the reference kernel and 1, naming the failed check, for a
// broken one; bad flags exit 2.
func TestCertifyKernelCLI(t *testing.T) {
	ref, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ref)
	defer srv.Close()
	if code, out, errOut := runCLI(t, "", "certify", "kernel", "--url", srv.URL+"/", "--seed", "3"); code != 0 {
		t.Fatalf("cli/certify-kernel [I-WIRE-8]: certify kernel (reference) = exit %d\n%s\n%s", code, out, errOut)
	}
	bad, err := kernelkit.NewBroken("two-drivers", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bsrv := httptest.NewServer(bad)
	defer bsrv.Close()
	code, out, errOut := runCLI(t, "", "certify", "kernel", "--url", bsrv.URL+"/", "--seed", "3")
	if code != 1 || !strings.Contains(out+errOut, "kernel/fencing") {
		t.Fatalf("cli/certify-kernel [I-WIRE-8]: certify kernel (two-drivers) = exit %d, want 1 naming kernel/fencing\n%s\n%s", code, out, errOut)
	}
	if code, _, _ := runCLI(t, "", "certify", "kernel", "--builtin", "memory"); code != 2 {
		t.Fatalf("cli/certify-kernel: certify kernel --builtin = exit %d, want 2", code)
	}
}
