package foldprops

import (
	"encoding/json"
	"strings"
	"testing"
)

// Reference: DESIGN §10 (failures as (-want +got) diffs) — a property's failure report diffs
// decoded values, except past maxDiffDepth levels of nesting, where go-cmp's time doubles with
// every level: hostile logs hold values 200 levels deep, whose diff falls back to the JSON texts.
func TestDiffDeepValues(t *testing.T) {
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	var a, b any
	json.Unmarshal([]byte(`{"a":1,"x":`+deep+`}`), &a) //nolint:errcheck // constant JSON
	json.Unmarshal([]byte(`{"a":2,"x":`+deep+`}`), &b) //nolint:errcheck // constant JSON
	if d := diff(a, b); !strings.Contains(d, "\n-") || !strings.Contains(d, "\"1\"") || !strings.Contains(d, "\"2\"") {
		t.Errorf("foldprops/diff: diff(200 levels deep) = %q, want a diff of the two texts", d)
	}
	if d := diff(map[string]any{"a": 1.0}, map[string]any{"a": 2.0}); !strings.Contains(d, "float64(1)") {
		t.Errorf("foldprops/diff: diff(shallow) = %q, want a value diff", d)
	}
}
