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

// requiredChoices is the Markdown table of the choice interpretations a required assertion of a
// kernel check cites beside a required clause (a check's clauses but the choices only its
// recommended assertion cites, kitCheck.ours): a kernel that differs from the reference kernel
// only in one of them fails that check as required (docs/wire.md, "What certify kernel checks").
func requiredChoices() string {
	held := map[string][]string{}
	for _, c := range kitChecks() {
		cited := slices.DeleteFunc(slices.Clone(c.Clauses), func(id string) bool { return slices.Contains(c.ours, id) })
		if spec.CheckRequirement(c.Level, cited) != spec.Required {
			continue
		}
		for _, id := range cited {
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

// freedomsTable is the Markdown table of the freedoms a required check compares a run up to, in
// the order they are aligned, indented for docs/wire.md's list item.
func freedomsTable() string {
	var b strings.Builder
	b.WriteString("    | choice | what may differ | aligned by |\n    | --- | --- | --- |\n")
	for _, f := range freedoms() {
		fmt.Fprintf(&b, "    | %s | %s | %s |\n", strings.Join(f.clauses, ", "), f.what, f.how)
	}
	return b.String()
}

// TestFreedomsDocumented keeps docs/wire.md's table of the choices a required comparison of a run
// is made up to true (freedoms.go).
func TestFreedomsDocumented(t *testing.T) {
	docBlock(t, "    <!-- freedoms:begin (go test ./kits/kernelkit -run TestFreedomsDocumented) -->\n", "    <!-- freedoms:end -->", freedomsTable())
}

// docBlock holds the text between begin and end in docs/wire.md to want.
func docBlock(t *testing.T, begin, end, want string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/wire.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/wire.md: no %q … %q block", strings.TrimSpace(begin), end)
	}
	if got := s[i+len(begin) : j]; got != want {
		t.Errorf("docs/wire.md's block %s is stale; want:\n%s", strings.TrimSpace(begin), want)
	}
}

// TestRequiredChoicesDocumented keeps docs/wire.md's list of the choices certify kernel still
// holds a kernel to true: a check that stops citing a choice, or starts to, changes the list.
func TestRequiredChoicesDocumented(t *testing.T) {
	docBlock(t, "<!-- required-choices:begin (go test ./kits/kernelkit -run TestRequiredChoicesDocumented) -->\n", "<!-- required-choices:end -->", requiredChoices())
}
