package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
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

// certify kernel --shard i/n runs a part of the kit (exit 5, partial), each shard's --report merges
// with report merge into a certified run, and --run is partial too (issue 24).
func TestCertifyKernelShardsCLI(t *testing.T) {
	ref, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ref)
	defer srv.Close()
	dir := t.TempDir()
	var parts []string
	for _, s := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".json")
		code, out, errOut := runCLI(t, "", "certify", "kernel", "--url", srv.URL+"/", "--seed", "3", "--shard", s, "--report", p)
		if code != 5 || !strings.Contains(out, "PARTIAL RUN") {
			t.Fatalf("cli/certify-kernel [I-SHARD-2]: certify kernel --shard %s = exit %d, want 5 (partial)\n%s\n%s", s, code, out, errOut)
		}
		parts = append(parts, p)
	}
	m := filepath.Join(dir, "merged.json")
	if code, _, errOut := runCLI(t, "", append([]string{"report", "merge", "--out", m}, parts...)...); code != 0 {
		t.Fatalf("cli/certify-kernel [I-SHARD-3]: report merge of the kernel shards = exit %d\n%s", code, errOut)
	}
	if code, _, _ := runCLI(t, "", "certify", "kernel", "--url", srv.URL+"/", "--seed", "3", "--run", "^kernel/handshake/"); code != 5 {
		t.Fatalf("cli/certify-kernel: certify kernel --run = exit %d, want 5 (partial)", code)
	}
}
