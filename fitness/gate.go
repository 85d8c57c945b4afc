package fitness

// Kind says how a gate is run.
type Kind string

const (
	// KindChecks runs catalog checks (Go tests) with `go test`: the gate passes when every one
	// passes. Check patterns are exact check ids or prefixes ending in "/*".
	KindChecks Kind = "checks"
	// KindBench runs one Go benchmark and compares a metric it reports with a threshold.
	KindBench Kind = "bench"
	// KindRatio measures an A/B pair in process, interleaved, with an A/A control (I-PERF-1).
	KindRatio Kind = "ratio"
	// KindCoverage judges the clause × check coverage against a reviewed ledger.
	KindCoverage Kind = "coverage"
	// KindMutants judges the proof records of a test run: every registered mutant killed.
	KindMutants Kind = "mutants"
)

// Verdict is a gate's outcome.
type Verdict string

const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Unknown Verdict = "unknown" // could not be judged (too noisy, a service missing outside CI): never a pass
	Pending Verdict = "pending" // the gate's runner does not exist yet: listed, never passing
)

// Gate is one fitness gate, as data: what guarantee it protects, what runs, the threshold and
// where it is enforced.
type Gate struct {
	ID        string   `json:"id"`
	Guarantee string   `json:"guarantee"`
	Clauses   []string `json:"clauses"`
	Kind      Kind     `json:"kind"`
	// Checks are the catalog check patterns a KindChecks gate runs.
	Checks []string `json:"checks,omitempty"`
	// Bench is the benchmark a KindBench gate runs.
	Bench *Bench `json:"bench,omitempty"`
	// Ratio names the workload of a KindRatio gate (see Workloads) and its limit.
	Ratio *Ratio `json:"ratio,omitempty"`
	// Threshold says in words what passing means.
	Threshold string `json:"threshold"`
	// Enforced says where the gate runs in CI.
	Enforced string `json:"enforced"`
	// Pending, when set, says why the gate cannot run yet; its verdict is pending.
	Pending string `json:"pending,omitempty"`
}

// Bench is a Go benchmark and the metric it reports.
type Bench struct {
	ID      string `json:"id"`      // stable bench id, cited by capability badges
	Package string `json:"package"` // package directory, e.g. "reference/stores/sqlite"
	Name    string `json:"name"`    // benchmark function, e.g. "BenchmarkAppendSingle"
	Metric  string `json:"metric"`  // the unit passed to b.ReportMetric, e.g. "store/raw"
	// Benchtime is passed to -benchtime (e.g. "200x"): enough iterations that one run's warm-up
	// does not decide the figure.
	Benchtime string  `json:"benchtime"`
	Min       float64 `json:"min,omitempty"`
	Max       float64 `json:"max,omitempty"`
}

// Ratio is the limit of a KindRatio gate on median B/A.
type Ratio struct {
	Workload string  `json:"workload"`
	Max      float64 `json:"max,omitempty"`
	Min      float64 `json:"min,omitempty"`
}

// Result is what running one gate gave.
type Result struct {
	Gate      string   `json:"gate"`
	Verdict   Verdict  `json:"verdict"`
	Figure    string   `json:"figure,omitempty"`
	Threshold string   `json:"threshold"`
	Clauses   []string `json:"clauses"`
	Detail    string   `json:"detail,omitempty"`
	Seconds   float64  `json:"seconds"`
	Rounds    int      `json:"rounds,omitempty"` // interleaved rounds a ratio gate measured
}
