package target

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A container pause that the cgroup freezer cannot finish is retried with backoff, every failed
// attempt is followed by a thaw (never left frozen), and other errors are not retried (I-BRIDGE-7).
func TestPauseRetriesFreezeFailures(t *testing.T) {
	freeze := errors.New("Error response from daemon: OCI runtime pause failed: unable to freeze: unknown")
	cases := []struct {
		name             string
		errs             []error // what each pause attempt answers (nil after the list)
		wantPauses       int
		wantUnpauses     int
		wantErr, wantMsg string
	}{
		{"succeeds at once", nil, 1, 0, "", ""},
		{"freeze fails twice", []error{freeze, freeze}, 3, 2, "", ""},
		{"freeze always fails", []error{freeze, freeze, freeze, freeze, freeze, freeze}, 5, 5, "unable to freeze", "in 5 attempts"},
		{"other error", []error{errors.New("container abc is not running")}, 1, 1, "not running", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pauses, unpauses := 0, 0
			pause := func(context.Context) error {
				pauses++
				if pauses <= len(c.errs) {
					return c.errs[pauses-1]
				}
				return nil
			}
			unpause := func(context.Context) error { unpauses++; return errors.New("container is not paused") }
			err := pauseWithRetry(context.Background(), pause, unpause, 5, time.Millisecond)
			if pauses != c.wantPauses || unpauses != c.wantUnpauses {
				t.Errorf("pauseWithRetry: %d pauses, %d unpauses; want %d, %d", pauses, unpauses, c.wantPauses, c.wantUnpauses)
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), c.wantMsg)) {
				t.Errorf("pauseWithRetry = %v, want an error containing %q and %q (\"\" = none)", err, c.wantErr, c.wantMsg)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := 0
	err := pauseWithRetry(ctx, func(context.Context) error { n++; return freeze }, func(context.Context) error { return nil }, 5, time.Hour)
	if n != 1 || err == nil || !strings.Contains(err.Error(), "attempt 1 of 5") {
		t.Errorf("pauseWithRetry(cancelled) = %v after %d attempts, want it to stop after 1", err, n)
	}
}
