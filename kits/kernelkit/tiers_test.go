package kernelkit

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// requiredChoices is the Markdown table of the choice interpretations a required kernel check
// cites beside a required clause: a kernel that differs from the reference kernel only in one of
// them fails that required check (docs/wire.md, "What certify kernel checks").
func requiredChoices() string {
	held := map[string][]string{}
	for _, c := range Kit().SpecChecks() {
		if spec.RequirementOf(c.Clauses) != spec.Required {
			continue
		}
		for _, id := range c.Clauses {
			if cl, ok := spec.Lookup(id); ok && cl.Tier == spec.TierChoice {
				held[id] = append(held[id], c.ID)
			}
		}
	}
	var b strings.Builder
	b.WriteString("| choice | required checks citing it |\n| --- | --- |\n")
	for _, id := range slices.Sorted(maps.Keys(held)) {
		fmt.Fprintf(&b, "| %s | `%s` |\n", id, strings.Join(held[id], "`, `"))
	}
	return b.String()
}

// TestRequiredChoicesDocumented keeps docs/wire.md's list of the choices certify kernel still
// holds a kernel to true: a check that stops citing a choice, or starts to, changes the list.
func TestRequiredChoicesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- required-choices:begin (go test ./kits/kernelkit -run TestRequiredChoicesDocumented) -->\n", "<!-- required-choices:end -->"
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/wire.md: no %q … %q block", strings.TrimSpace(begin), end)
	}
	if got, want := s[i+len(begin):j], requiredChoices(); got != want {
		t.Errorf("docs/wire.md's required-choices table is stale; want:\n%s", want)
	}
}
