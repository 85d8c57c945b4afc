package deploysim

import (
	"fmt"
	"strings"
)

// Config is one simulation run. Zero fields take defaults (withDefaults).
type Config struct {
	Scenario string
	Seed     int64
	// Workers is the fleet size (default 3).
	Workers int
	// Orders and Batches are how many executions of each flow run (default 4 and 3).
	Orders, Batches int
	// Steps is the number of scheduling steps with faults before the fleet is left to settle
	// (default 120).
	Steps int
	// Broken breaks the fleet on purpose (mutants.go); the zero value is a correct fleet.
	Broken Broken
}

// Broken are fleet mutants: each, when set, breaks one rule a correct fleet keeps.
type Broken struct {
	SkipFence             bool // workers do not fence their appends (a store without acquireFence)
	DoubleDeliver         bool // the dispatcher ignores live leases
	ReadNewerSnapshot     bool // every worker reads the newest profile's snapshots as its own
	RerunCompletedEffect  bool // the kernel re-invokes completed steps' effects on replay
	MigrationDropsResumes bool // upgraded workers snapshot without _resumePayloads
	AppendAfterLeaseLost  bool // a worker told its lease is lost keeps going
	LoseOnCrash           bool // the dispatcher drops the package of a lease that expired unacked
	AckWithoutDriving     bool // a re-delivered package is acked without driving the execution
}

const (
	leaseTTL    = 200 // virtual ms
	settleSteps = 600
	// settlePerExecution is how many more settle steps each execution earns: a worker takes one
	// package a step, and an execution needs a few (its start, a resume, a verdict, a
	// re-delivery), so a fixed bound left a single worker with hundreds of executions unsettled.
	settlePerExecution = 8
)

// settleBound is the most settle steps a run of n executions takes; a fleet that goes idle
// stops long before it.
func settleBound(n int) int { return settleSteps + settlePerExecution*n }

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = 3
	}
	if c.Orders == 0 && c.Batches == 0 {
		c.Orders, c.Batches = 4, 3
	}
	if c.Steps <= 0 {
		c.Steps = 120
	}
	return c
}

// Repro is the one-line command that re-runs this configuration.
func (c Config) Repro() string {
	s := fmt.Sprintf("loom-conform deploysim --scenario %s --seed %d --workers %d", c.Scenario, c.Seed, c.Workers)
	if b := c.Broken.names(); b != "" {
		s = fmt.Sprintf("go test ./deploysim -run 'TestBrokenFleetsCaught/%s' (seed %d)", b, c.Seed)
	}
	return s
}

func (b Broken) names() string {
	var out []string
	for _, m := range brokenFleets() {
		if m.Broken == b {
			out = append(out, m.Name)
		}
	}
	return strings.Join(out, ",")
}
