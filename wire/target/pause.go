package target

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Freeze retries: under load the cgroup freezer may not finish in time and `docker pause` fails
// with "OCI runtime pause failed: unable to freeze". Five attempts with a doubling backoff from
// 200 ms span about three seconds.
const (
	freezeAttempts = 5
	freezeBackoff  = 200 * time.Millisecond
)

// PauseWithRetry freezes a container with pause, retrying a freeze the container runtime could
// not complete (see freezeAttempts). After every failed attempt it calls unpause, ignoring its
// error (the container is normally not paused then), so a failed pause never leaves the container
// frozen. Any other error returns at once; so does the last freeze failure, naming the attempts.
// Container Pausers use it; the fault check then reports unknown, not fail, if it still fails.
func PauseWithRetry(ctx context.Context, pause, unpause func(context.Context) error) error {
	return pauseWithRetry(ctx, pause, unpause, freezeAttempts, freezeBackoff)
}

func pauseWithRetry(ctx context.Context, pause, unpause func(context.Context) error, attempts int, backoff time.Duration) error {
	start := time.Now()
	for i := 1; ; i++ {
		err := pause(ctx)
		if err == nil {
			return nil
		}
		// A freeze that failed half way is thawed by the runtime; make sure of it.
		_ = unpause(context.WithoutCancel(ctx))
		if !isFreezeFailure(err) {
			return err
		}
		if i == attempts {
			return fmt.Errorf("the container could not be frozen in %d attempts over %s (the host's cgroup freezer timed out): %w",
				attempts, time.Since(start).Round(10*time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("freezing the container (attempt %d of %d): %w (then %v)", i, attempts, err, context.Cause(ctx))
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

// isFreezeFailure reports whether err is the runtime failing to freeze the container's cgroup,
// which a later attempt may not hit.
func isFreezeFailure(err error) bool {
	s := err.Error()
	return strings.Contains(s, "unable to freeze") || strings.Contains(s, "OCI runtime pause failed")
}
