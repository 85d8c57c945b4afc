package certify

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Slowest returns the n checks of r that took longest, slowest first (ties in report order).
func Slowest(r *Report, n int) []CheckResult {
	cs := slices.Clone(r.Checks)
	slices.SortStableFunc(cs, func(a, b CheckResult) int {
		switch {
		case a.DurationMs > b.DurationMs:
			return -1
		case a.DurationMs < b.DurationMs:
			return 1
		}
		return 0
	})
	return cs[:min(n, len(cs))]
}

// WriteSlowest writes the five slowest checks of r with their time and share of their limit, so a
// run that nears its time limits says where.
func WriteSlowest(w io.Writer, r *Report) error {
	s := Slowest(r, 5)
	if len(s) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "slowest checks:"); err != nil {
		return err
	}
	for _, c := range s {
		d := msDuration(c.DurationMs)
		share := ""
		if r.Options.TimeoutMs > 0 {
			share = fmt.Sprintf(" (%.0f%% of its %s limit)", 100*c.DurationMs/r.Options.TimeoutMs, msDuration(r.Options.TimeoutMs))
		}
		if _, err := fmt.Fprintf(w, "  %8s  %s%s\n", d.Round(time.Millisecond), c.ID, share); err != nil {
			return err
		}
	}
	return nil
}

func msDuration(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
