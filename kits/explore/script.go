package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Step is one operation of a script: the client that makes it (0 for a single-client script), the
// operation's name ("append", "read", …, as the seam's explorer names them) and its arguments. A
// step whose Op is Together is made of the steps in Together, made at the same time, each by its
// own client: a race, which the target may answer as the reference answers them in any order.
type Step struct {
	Client   int             `json:"client,omitempty"`
	Op       string          `json:"op"`
	Args     json.RawMessage `json:"args,omitempty"`
	Together []Step          `json:"together,omitempty"`
}

// Together is the Op of a step made of steps made at the same time, MaxTogether the most it may
// hold (each order of them is tried against the reference).
const (
	Together    = "together"
	MaxTogether = 4
)

// String is the step as one line: `op {args}`, with the client when there are several; the steps
// of a Together step joined by " ∥ ".
func (s Step) String() string {
	if s.Op == Together {
		parts := make([]string, len(s.Together))
		for i, t := range s.Together {
			parts[i] = t.String()
		}
		return strings.Join(parts, " ∥ ")
	}
	out := s.Op
	if len(s.Args) > 0 {
		out += " " + string(s.Args)
	}
	if s.Client != 0 {
		out = fmt.Sprintf("client %d: %s", s.Client, out)
	}
	return out
}

// Script is a seeded sequence of steps against one seam: Check is the check that made it
// ("eventstore/explore"), Seed the run's seed and Round which of its scripts this is.
type Script struct {
	Check string `json:"check"`
	Seed  int64  `json:"seed"`
	Round int    `json:"round"`
	Steps []Step `json:"steps"`
}

// Lines is the script's steps, one numbered line each.
func (s Script) Lines() string {
	var b strings.Builder
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "%3d  %s\n", i, st)
	}
	return b.String()
}

// ParseScript reads a script file (Finding.File or a Script as JSON), naming what is wrong.
func ParseScript(data []byte) (Script, error) {
	var f struct {
		Script
		Mismatch json.RawMessage `json:"mismatch"`
	}
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return Script{}, fmt.Errorf("explore script: %w", err)
	}
	if f.Check == "" {
		return Script{}, fmt.Errorf("explore script: no \"check\" (which exploration made it)")
	}
	for i := range f.Steps {
		if err := f.Steps[i].check(fmt.Sprintf("steps[%d]", i), true); err != nil {
			return Script{}, fmt.Errorf("explore script: %w", err)
		}
	}
	return f.Script, nil
}

// check validates a parsed step at path and compacts its arguments; group says whether it may be
// a Together step (whose steps may not be).
func (st *Step) check(path string, group bool) error {
	switch {
	case st.Op == "":
		return fmt.Errorf("%s: no \"op\"", path)
	case st.Op == Together && !group:
		return fmt.Errorf("%s: a %q step inside another", path, Together)
	case st.Op == Together && (len(st.Together) < 2 || len(st.Together) > MaxTogether):
		return fmt.Errorf("%s: a %q step of %d steps, want 2 to %d", path, Together, len(st.Together), MaxTogether)
	case st.Op != Together && len(st.Together) > 0:
		return fmt.Errorf("%s: \"together\" on a %q step, want op %q", path, st.Op, Together)
	}
	for i := range st.Together {
		if err := st.Together[i].check(fmt.Sprintf("%s.together[%d]", path, i), false); err != nil {
			return err
		}
	}
	if len(st.Args) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, st.Args); err != nil {
			return fmt.Errorf("%s.args: %v", path, err)
		}
		st.Args = b.Bytes()
	}
	return nil
}

// Args encodes v as a step's arguments.
func Args(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("explore.Args(%T): %v", v, err)) // the explorers pass plain data only
	}
	return b
}
