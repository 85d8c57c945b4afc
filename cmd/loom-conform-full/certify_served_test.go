package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// `certify all` against a bridge that serves only EventStore judges only EventStore: the badge
// and the headline name that one seam and its SPI version, never "store SPIs", and the certificate
// says the other seams were not served and not judged.
func TestCertifyAllNamesOnlyServedSeamsCLI(t *testing.T) {
	srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "events-only", Version: "1"},
		EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	badge := filepath.Join(t.TempDir(), "b.svg")
	code, stdout, stderr := runCLI(t, "", "certify", "all", "--url", url, "--seed", "5", "--badge", badge)
	if code != 0 {
		t.Fatalf("certify all --url (EventStore only) = exit %d\nstdout:\n%s\nstderr tail: %s", code, stdout, lastLine(stderr))
	}
	b, err := os.ReadFile(badge)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "loom EventStore SPI 2.6.0") || strings.Contains(string(b), "store SPIs") {
		t.Errorf("certify all (EventStore only): badge = %s, want the label \"loom EventStore SPI 2.6.0\" and no claim on other seams", b)
	}
	if !strings.HasPrefix(stdout, "loom store certificate — CERTIFIED: EventStore SPI 2.6.0 ") {
		t.Errorf("certify all (EventStore only): headline = %q, want it to name EventStore SPI 2.6.0 alone", firstLineOf(stdout))
	}
	for _, seam := range []string{"SnapshotStore", "ArchiveStore", "ReadModelStore"} {
		if !strings.Contains(stdout, seam) || !strings.Contains(firstLineOf(stdout), "not served") {
			t.Errorf("certify all (EventStore only): certificate does not say %s was not served:\n%s", seam, stdout)
		}
	}
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
