package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Mismatch is the first answer where the target and the reference part: the step, the operation
// and its arguments, both answers, and the clauses the differing answer enforces (the tier per
// assertion: a mismatch citing only choices is a recommendation, any other is required).
type Mismatch struct {
	Step    int      `json:"step"`
	Op      string   `json:"op"`
	Args    string   `json:"args"`
	Got     string   `json:"got"`
	Want    string   `json:"want"`
	Diff    string   `json:"diff,omitempty"`
	Clauses []string `json:"clauses"`
}

// Same reports whether m and o are the same disagreement for shrinking: the same operation and
// the same clauses (a shorter script that parts on another rule found another bug).
func (m *Mismatch) Same(o *Mismatch) bool {
	return m != nil && o != nil && m.Op == o.Op && slices.Equal(m.Clauses, o.Clauses)
}

// Replay applies a script to a fresh target and a fresh reference and returns the first mismatch
// (nil when they agree on every answer). An error is a failure to judge (the target is gone, the
// context ended), never a disagreement.
type Replay func(ctx context.Context, s Script) (*Mismatch, error)

// Finding is a shrunk disagreement: the minimal script and where it parts.
type Finding struct {
	Script   Script   `json:"script"`
	Mismatch Mismatch `json:"mismatch"`
	// Tried counts the replays shrinking made.
	Tried int `json:"tried"`
}

// File is the finding as a replayable script file: the script's members, and the mismatch beside
// them (ParseScript reads it back).
func (f Finding) File() []byte {
	b, err := json.MarshalIndent(struct {
		Script
		Mismatch Mismatch `json:"mismatch"`
	}{f.Script, f.Mismatch}, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// FileName is a stable name for the finding's file: <check>-<seed>-<round>.json, the check's
// slash a dash.
func (f Finding) FileName() string {
	return fmt.Sprintf("%s-%d-%d.json", strings.ReplaceAll(f.Script.Check, "/", "-"), f.Script.Seed, f.Script.Round)
}
