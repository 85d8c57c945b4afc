package vectors

import (
	"context"
	"testing"
)

func TestReferencePassesCorpus(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rep := Run(context.Background(), c, Reference{}, Config{})
	for _, r := range rep.Results {
		if r.Verdict != Pass {
			t.Errorf("%s", r.Message)
		}
	}
	if !rep.OK() {
		t.Errorf("Run(reference) OK = false, want true: %+v", rep.Counts())
	}
}
