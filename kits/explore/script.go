package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Step is one operation of a script: the client that makes it (0 for a single-client script), the
// operation's name ("append", "read", …, as the seam's explorer names them) and its arguments.
type Step struct {
	Client int             `json:"client,omitempty"`
	Op     string          `json:"op"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// String is the step as one line: `op {args}`, with the client when there are several.
func (s Step) String() string {
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
	for i, st := range f.Steps {
		if st.Op == "" {
			return Script{}, fmt.Errorf("explore script: steps[%d]: no \"op\"", i)
		}
		if len(st.Args) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, st.Args); err != nil {
				return Script{}, fmt.Errorf("explore script: steps[%d].args: %v", i, err)
			}
			f.Steps[i].Args = b.Bytes()
		}
	}
	return f.Script, nil
}

// Args encodes v as a step's arguments.
func Args(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("explore.Args(%T): %v", v, err)) // the explorers pass plain data only
	}
	return b
}
