package fold

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite generated files (docs/events.md)")

// Reference: spec §4 — the catalogue with payload shapes is kept current with the type table.
func TestEventsDocCurrent(t *testing.T) {
	const path = "../../docs/events.md"
	want := EventsMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("fold/catalogue-current [S4.log.known-types-pinned]: docs/events.md is stale (err %v): run `go test ./reference/fold -run TestEventsDocCurrent -update`", err)
	}
}
