package kernelkit

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

var update = flag.Bool("update", false, "rewrite docs/wire.md's list of every check")

// checkList is the Markdown table of every check of the kit: what it demands, the clauses it
// enforces and whether it binds a kernel (docs/wire.md, "Every check").
func checkList() string {
	var b strings.Builder
	b.WriteString("| check | binds | clauses | what it demands |\n| --- | --- | --- | --- |\n")
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	for _, ch := range Kit().Checks {
		binds := "required"
		if spec.CheckRequirement(ch.Level, ch.Clauses) != spec.Required {
			binds = "recommended"
		}
		b.WriteString("| `" + ch.ID + "` | " + binds + " | " + strings.Join(ch.Clauses, " ") + " | " + cell.Replace(ch.Doc) + " |\n")
	}
	return b.String()
}

// TestCheckListDocumented keeps docs/wire.md's list of every check equal to the kit: a check added,
// removed, or whose demand, clauses or level changed, changes the list (I-WIRE-8: docs/wire.md
// states every requirement a check enforces).
func TestCheckListDocumented(t *testing.T) {
	const path = "../../docs/wire.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- check-list:begin (go test ./kits/kernelkit -run TestCheckListDocumented -update) -->\n", "<!-- check-list:end -->"
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/wire.md: no %q … %q block", strings.TrimSpace(begin), end)
	}
	want := checkList()
	if got := s[i+len(begin) : j]; got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("wire/check-list [I-WIRE-8]: docs/wire.md's list of every check is stale: run go test ./kits/kernelkit -run TestCheckListDocumented -update and review the diff")
}
