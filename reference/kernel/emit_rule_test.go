package kernel

import "testing"

// Reference: spec §3 (ADR 0102) — the emit rule as a table, one row per clause of the serving
// and stamping conditions.
func TestEmitRuleTable(t *testing.T) {
	type row struct {
		name          string
		clause        string
		f             EmitFacts
		append, stamp bool
	}
	rows := []row{
		{"fresh emit", "S3.emit.stamp-exceeds-count", EmitFacts{N: 0, Logged: 0}, true, true},
		{"logged, nothing live: served", "S3.emit.serve-skip", EmitFacts{N: 0, Logged: 1}, false, false},
		{"logged twice, second copy: served", "S3.emit.serve-skip", EmitFacts{N: 1, Logged: 2}, false, false},
		{"logged but segment ran live: appended", "S3.emit.serve-append", EmitFacts{N: 0, Logged: 1, SegmentLive: true}, true, false},
		{"n reaches the count: appended and stamped", "S3.emit.serve-append", EmitFacts{N: 1, Logged: 1}, true, true},
		{"live and not exceeding: unstamped", "S3.emit.stamp-exceeds-count", EmitFacts{N: 1, Logged: 2, SegmentLive: true}, true, false},
		{"effect in flight: unstamped", "S3.emit.stamp-nothing-in-flight", EmitFacts{InFlight: true}, true, false},
		{"inside parallel: unstamped", "S3.emit.stamp-nothing-in-flight", EmitFacts{InParallel: true}, true, false},
		{"after an unserved outcome: unstamped", "S3.emit.stamp-nothing-unserved", EmitFacts{Unserved: true}, true, false},
		{"kernel fact: never stamped", "S3.emit.kernel-facts-unstamped", EmitFacts{KernelFact: true}, true, false},
		{"legacy log counts nothing: appended, stamped", "S3.emit.legacy-log", EmitFacts{N: 3, Logged: 0}, true, true},
	}
	for _, r := range rows {
		a, s := EmitRule(r.f, Hooks{})
		if a != r.append || s != r.stamp {
			t.Errorf("kernel/emit-rule [%s]: EmitRule(%s %+v) = append %v stamp %v, want append %v stamp %v", r.clause, r.name, r.f, a, s, r.append, r.stamp)
		}
	}
	// Every hook breaks at least one row.
	for name, h := range map[string]Hooks{
		"StampWhileInFlight": {StampWhileInFlight: true}, "StampAfterUnserved": {StampAfterUnserved: true},
		"ServeIgnoringLiveWork": {ServeIgnoringLiveWork: true}, "NeverStamp": {NeverStamp: true},
	} {
		broken := false
		for _, r := range rows {
			if a, s := EmitRule(r.f, h); a != r.append || s != r.stamp {
				broken = true
			}
		}
		if !broken {
			t.Errorf("kernel/emit-rule: hook %s changes no row of the table", name)
		}
	}
}
