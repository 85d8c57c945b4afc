package realfleet

import (
	"context"
	"fmt"
	"sort"
	"time"

	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
)

// effectRun is one row of the effect ledger: a worker ran tool for a step of an execution at a
// time of the database's clock; completedBefore says the log already held the step's completion
// when it did.
type effectRun struct {
	exec, step, tool, worker string
	attempt                  int
	completedBefore          bool
	at                       time.Time
}

// pauseSpan is one SIGSTOP of a worker, with the database's clock; ended is zero while it lasts.
type pauseSpan struct {
	worker         string
	started, ended time.Time
}

// readLedger reads the effect ledger and the pauses of a finished fleet.
func readLedger(ctx context.Context, db *storespg.DB) ([]effectRun, []pauseSpan, error) {
	rows, err := db.Pool().Query(ctx, `SELECT execution_id, step, attempt, tool, worker, completed_before, at FROM deploysim_effects ORDER BY execution_id, step, at`)
	if err != nil {
		return nil, nil, err
	}
	var runs []effectRun
	for rows.Next() {
		var r effectRun
		if err := rows.Scan(&r.exec, &r.step, &r.attempt, &r.tool, &r.worker, &r.completedBefore, &r.at); err != nil {
			rows.Close()
			return nil, nil, err
		}
		runs = append(runs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	prows, err := db.Pool().Query(ctx, `SELECT worker, started, COALESCE(ended, 'epoch'::timestamptz) FROM deploysim_pauses`)
	if err != nil {
		return nil, nil, err
	}
	defer prows.Close()
	var pauses []pauseSpan
	for prows.Next() {
		var p pauseSpan
		if err := prows.Scan(&p.worker, &p.started, &p.ended); err != nil {
			return nil, nil, err
		}
		if p.ended.Unix() == 0 {
			p.ended = time.Time{}
		}
		pauses = append(pauses, p)
	}
	return runs, pauses, prows.Err()
}

// ledgerVerdict is what the effect ledger shows of the judged executions: at-most-once groups
// judged and the ones run twice without excuse; effect runs judged for served-not-rerun and the
// ones made after the step's completion was logged without excuse; and how many later runs the
// zombie window excused.
type ledgerVerdict struct {
	onceGroups    int
	dup           []string
	runs          int
	rerun         []effectRun
	excusedOnce   int
	excusedReruns int
}

// judgeLedger judges the effect runs of the judged executions. A second run of an at-most-once
// step, or a run made after the step's completion was logged, is excused only when its worker was
// resumed, before that run, from a SIGSTOP that began before the step's first run: the zombie
// window of I-SIM-3, which only an effect-side fence would close.
func judgeLedger(runs []effectRun, pauses []pauseSpan, judged map[string]bool) ledgerVerdict {
	var v ledgerVerdict
	first := map[string]time.Time{}
	groups := map[string][]effectRun{}
	var keys []string
	for _, r := range runs {
		if !judged[r.exec] {
			continue
		}
		k := r.exec + "/" + r.step
		if f, ok := first[k]; !ok || r.at.Before(f) {
			first[k] = r.at
		}
		if r.tool == "once" {
			if groups[k] == nil {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], r)
		}
	}
	zombie := func(r effectRun) bool {
		for _, p := range pauses {
			if p.worker == r.worker && !p.ended.IsZero() && !p.ended.After(r.at) && !p.started.After(first[r.exec+"/"+r.step]) {
				return true
			}
		}
		return false
	}
	sort.Strings(keys)
	for _, k := range keys {
		v.onceGroups++
		rs := groups[k]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].at.Before(rs[j].at) })
		unexcused := 0
		for _, r := range rs[1:] {
			if zombie(r) {
				v.excusedOnce++
			} else {
				unexcused++
			}
		}
		if unexcused > 0 {
			v.dup = append(v.dup, fmt.Sprintf("%s ×%d", k, len(rs)))
		}
	}
	for _, r := range runs {
		if !judged[r.exec] {
			continue
		}
		v.runs++
		if !r.completedBefore {
			continue
		}
		if zombie(r) {
			v.excusedReruns++
		} else {
			v.rerun = append(v.rerun, r)
		}
	}
	return v
}
