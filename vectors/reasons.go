package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// The claims a fold vector's reason can make about a reserved variable that a reader can check
// against the expected state without understanding the sentence (I-VECTOR-9). Each pattern's
// groups name the variables it speaks of; a claim is about the final state.
var (
	// "no _x", "without _x", "sets no _x", "_x absent", "leaves _x absent"
	claimAbsent = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`\b(?:no|without)\s+(_[A-Za-z]+)\b`),
			regexp.MustCompile(`(_[A-Za-z]+)\s+(?:is\s+|stays\s+)?absent\b`),
		}
	})
	// "seeds an empty _x", "to an empty _x", "_x {}", "_x []"
	claimEmpty = sync.OnceValue(func() []*regexp.Regexp {
		return []*regexp.Regexp{
			regexp.MustCompile(`\b(?:seeds?|sets?|folds?\s+to|to|is|becomes?)\s+an?\s+empty\s+(_[A-Za-z]+)\b`),
			regexp.MustCompile(`(_[A-Za-z]+)\s+(?:\{\}|\[\])`),
		}
	})
	// "inbox {} seeds {}", "quarantined {} seeds an empty": a carry member said to seed its key empty
	claimCarryEmpty = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(resources|inbox|quarantined)\s+\{\}\s+seeds?\s+(?:\{\}|an?\s+empty\b)`)
	})
	// "seeds _x", "seeds _x and _y", "seeds _x, _y and _z"
	claimSeeds = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bseeds?\s+(_[A-Za-z]+(?:(?:,\s*|\s+and\s+)_[A-Za-z]+)*)`)
	})
	varName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`_[A-Za-z]+`) })
)

// carryKeys maps a carry member to the reserved variable it seeds (I-FOLD-5).
var carryKeys = map[string]string{"resources": fold.VarResources, "inbox": fold.VarInbox, "quarantined": fold.VarQuarantined}

// reasonContradiction reports what a fold vector's reason says about a reserved variable that its
// expected state contradicts, or "" when every such claim holds (I-VECTOR-9). Words other than the
// claims above are not read; names that are not reserved variables are ignored.
func reasonContradiction(reason string, state json.RawMessage) string {
	var st struct {
		Variables map[string]json.RawMessage `json:"variables"`
	}
	if json.Unmarshal(state, &st) != nil {
		return "" // expect.state is checked on its own
	}
	reserved := map[string]bool{}
	for _, r := range fold.ReservedVariables() {
		reserved[r.Name] = true
	}
	var bad []string
	check := func(key, claim string, holds func(v json.RawMessage, ok bool) bool) {
		if !reserved[key] {
			return
		}
		if v, ok := st.Variables[key]; !holds(v, ok) {
			bad = append(bad, fmt.Sprintf("it says %s is %s, the expected state has %s", key, claim, describeVar(v, ok)))
		}
	}
	absent := func(_ json.RawMessage, ok bool) bool { return !ok }
	empty := func(v json.RawMessage, ok bool) bool {
		t := bytes.Join(bytes.Fields(v), nil)
		return ok && (string(t) == "{}" || string(t) == "[]")
	}
	present := func(_ json.RawMessage, ok bool) bool { return ok }
	for _, re := range claimAbsent() {
		for _, m := range re.FindAllStringSubmatch(reason, -1) {
			check(m[1], "absent", absent)
		}
	}
	for _, re := range claimEmpty() {
		for _, m := range re.FindAllStringSubmatch(reason, -1) {
			check(m[1], "empty", empty)
		}
	}
	for _, m := range claimCarryEmpty().FindAllStringSubmatch(reason, -1) {
		check(carryKeys[m[1]], "seeded empty", empty)
	}
	for _, m := range claimSeeds().FindAllStringSubmatch(reason, -1) {
		for _, key := range varName().FindAllString(m[1], -1) {
			check(key, "seeded", present)
		}
	}
	return strings.Join(bad, "; ")
}

func describeVar(v json.RawMessage, ok bool) string {
	if !ok {
		return "none"
	}
	if len(v) > 40 {
		return "a value"
	}
	return string(bytes.Join(bytes.Fields(v), nil))
}
