package main

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Reference: spec §6, §7 — certify dispatcher certifies the reference dispatcher through the
// bridge and refuses a broken one reached by --url, naming the failed check.
func TestCertifyDispatcherCLI(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "certify", "dispatcher", "--builtin", "memory", "--seed", "7")
	if code != 0 || !strings.Contains(stdout, "ExecutionDispatcher: SPI 1.0.0  certified") {
		t.Fatalf("certify dispatcher --builtin memory = exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "broken", Version: "1"},
		Dispatcher: memory.New(memory.Config{Hooks: memory.Hooks{IgnoreLease: true}})}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	code, stdout, stderr = runCLI(t, "", "certify", "dispatcher", "--url", url, "--seed", "7")
	if code != 1 || !strings.Contains(stderr+stdout, "dispatcher/exclusive-lease") {
		t.Fatalf("certify dispatcher --url (double-delivering) = exit %d, want 1 naming dispatcher/exclusive-lease\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "", "certify", "dispatchr", "--builtin", "memory"); code != 2 || !strings.Contains(stderr, "dispatcher") {
		t.Errorf("certify dispatchr = exit %d, stderr %q; want 2 listing the kinds", code, stderr)
	}
}
