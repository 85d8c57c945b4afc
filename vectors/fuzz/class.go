package fuzz

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/vectors"
)

// Class is one root cause: every disagreeing log whose answers first differ at the same path, with
// the representative's shrunk log. Key is `<shape> @ <path>`: the event types of the shrunk log
// (with "snapshot+" when it starts from one) and where the two answers first differ (a JSON
// Pointer into the states, data keys such as step ids written *, or the two error kinds).
type Class struct {
	Key string
	// Logs counts the disagreeing logs of the class; Seeds are the first few of their seeds.
	Logs  int
	Seeds []uint64
	// Finding is the representative, shrunk.
	Finding *Finding
	// Known is the ledger's reason when the class is set aside (Config.Known).
	Known string
}

// maxSeeds is how many seeds of a class are kept to show.
const maxSeeds = 5

func (c *Class) add(seed uint64) {
	c.Logs++
	if len(c.Seeds) < maxSeeds {
		c.Seeds = append(c.Seeds, seed)
	}
}

func sortClasses(cs []*Class) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Logs > cs[j].Logs })
}

// ClassKey is the class of a shrunk case and its two answers: its shape, then where they differ.
func ClassKey(c Case, want, got vectors.Response) string {
	return Shape(c) + " @ " + answerPath(want, got)
}

// Shape is the event types of c in order, e.g. "snapshot+[EXECUTION_STARTED STEP_FAILED]"; an
// envelope without a string eventType reads "?".
func Shape(c Case) string {
	types := make([]string, len(c.Events))
	for i, e := range c.Events {
		var env struct {
			EventType any `json:"eventType"`
		}
		types[i] = "?"
		if json.Unmarshal(e, &env) == nil {
			if s, ok := env.EventType.(string); ok {
				types[i] = s
			}
		}
	}
	s := "[" + strings.Join(types, " ") + "]"
	if c.Snapshot != nil {
		s = "snapshot+" + s
	}
	return s
}

// answerPath says where two answers differ: "error invalid-envelope / output" when one refused,
// "error A / error B" for two error kinds, else the first differing JSON Pointer of the two states.
func answerPath(want, got vectors.Response) string {
	side := func(r vectors.Response) string {
		if r.Output == nil {
			return "error " + r.Error
		}
		return "output"
	}
	if want.Output == nil || got.Output == nil {
		return side(want) + " / " + side(got)
	}
	if !json.Valid([]byte(*want.Output)) || !json.Valid([]byte(*got.Output)) {
		return "output (not JSON)"
	}
	d := goldens.DiffRuns(nil, nil, []byte(*want.Output), []byte(*got.Output), goldens.DiffOptions{})
	if d == nil {
		return "output bytes" // equal values, different text (spacing, key order, number spelling)
	}
	return classPath(d.Pointer)
}

// dataKeys are the objects whose member names are data (step ids, decision ids, digests, topics):
// a path through one writes * for the member.
var dataKeys = map[string]bool{"frames": true, "_decisions": true, "_flowEmits": true, "_inbox": true, "_waits": true,
	"_waitAnswers": true, "_scopes": true, "_quarantined": true, "_resumePayloads": true}

// classPath generalises a JSON Pointer into a state: array indices become #, the member names of
// data objects (and user variables) become *, so logs with other step ids share a class.
func classPath(pointer string) string {
	segs := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i, s := range segs {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		switch {
		case s == "":
		case strings.Trim(s, "0123456789") == "":
			s = "#"
		case i > 0 && dataKeys[segs[i-1]], i == 1 && segs[0] == "variables" && !strings.HasPrefix(s, "_"):
			s = "*"
		}
		segs[i] = s
	}
	return "/" + strings.Join(segs, "/")
}

// Summary says in one line how many logs the class holds and which seeds.
func (c *Class) Summary() string {
	seeds := make([]string, len(c.Seeds))
	for i, s := range c.Seeds {
		seeds[i] = strconv.FormatUint(s, 10)
	}
	more := ""
	if c.Logs > len(c.Seeds) {
		more = ", …"
	}
	return fmt.Sprintf("%d log(s) (seeds %s%s)", c.Logs, strings.Join(seeds, ", "), more)
}
