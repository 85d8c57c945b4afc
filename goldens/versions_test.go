package goldens

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Reference: I-GOLDEN-5 — recorded.json's profile, kernelAbi and eventSchema are compared with the
// driver's profile and the manifest; editing any of them fails the golden at stage "recorded",
// naming the field, while a golden recorded at an older profile keeps its profile and passes.
func TestRecordedVersionsChecked(t *testing.T) {
	load := func(name string) *Golden {
		g, err := Load(filepath.Join("corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	check := func(g *Golden) Result {
		return Check(context.Background(), []*Golden{g}, CheckOptions{NoG2: true})[0]
	}
	for _, name := range []string{"suspend-resume", "profile-1-20"} {
		if r := check(load(name)); r.Failed() {
			t.Fatalf("goldens/RecordedVersionsChecked: %s unedited: %s, want pass", name, r)
		}
	}
	cases := []struct {
		golden, field string
		edit          func(*Recorded)
	}{
		{"suspend-resume", "profile", func(r *Recorded) { r.Profile = "1.20.0" }},
		{"suspend-resume", "profile", func(r *Recorded) { r.Profile = "anything" }},
		{"profile-1-20", "profile", func(r *Recorded) { r.Profile = "1.26.0" }},
		{"suspend-resume", "kernelAbi", func(r *Recorded) { r.KernelAbi = "9.9.9" }},
		{"suspend-resume", "kernelAbi", func(r *Recorded) { r.KernelAbi = "1.99.0" }},
		{"suspend-resume", "kernelAbi", func(r *Recorded) { r.KernelAbi = "anything" }},
		{"suspend-resume", "kernelAbi", func(r *Recorded) { r.KernelAbi = "" }},
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "1.27.0" }},
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "1.26.1" }},
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "2.0.0" }},
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "1.2.0" }},
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "1.20.0" }}, // older than the profile 1.26.0
		{"suspend-resume", "eventSchema", func(r *Recorded) { r.EventSchema = "anything" }},
	}
	for _, c := range cases {
		g := load(c.golden)
		c.edit(&g.Recorded)
		r := check(g)
		if !r.Failed() || r.Problems[0].Stage != "recorded" || !strings.Contains(r.Problems[0].Message, `field "`+c.field+`"`) {
			t.Errorf("goldens/RecordedVersionsChecked: Check(%s with %s = %q/%q/%q) = %s, want a fail at stage recorded naming field %q",
				c.golden, c.field, g.Recorded.Profile, g.Recorded.KernelAbi, g.Recorded.EventSchema, r, c.field)
		}
	}
}
