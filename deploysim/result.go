package deploysim

import (
	"fmt"
	"strings"
)

// Violation is one broken invariant, in the project's failure grammar.
type Violation struct {
	Invariant string   `json:"invariant"`
	Clauses   []string `json:"clauses"`
	Execution string   `json:"execution,omitempty"`
	Op        string   `json:"op"`
	Got       string   `json:"got"`
	Want      string   `json:"want"`
	Repro     string   `json:"repro"`
}

func (v Violation) Error() string {
	return fmt.Sprintf("%s [%s]: %s(%s) = %s, want %s\nreproduce: %s", v.Invariant, strings.Join(v.Clauses, " "), v.Op, v.Execution, v.Got, v.Want, v.Repro)
}

// Result is what one run did and which invariants it broke.
type Result struct {
	Scenario   string      `json:"scenario"`
	Seed       int64       `json:"seed"`
	Workers    int         `json:"workers"`
	Executions int         `json:"executions"`
	Events     int         `json:"events"`
	Steps      int         `json:"steps"`
	Crashes    int         `json:"crashes"`
	Pauses     int         `json:"pauses"`
	Fenced     int         `json:"fenced"`
	Mismatches int         `json:"mismatches"`
	Migrations int         `json:"migrations"`
	Violations []Violation `json:"violations"`
	Repro      string      `json:"repro"`
	// Err is set when the run itself could not be set up (unknown scenario).
	Err string `json:"error,omitempty"`
}

// OK reports whether the run broke no invariant.
func (r Result) OK() bool { return r.Err == "" && len(r.Violations) == 0 }
