package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// deleteRaceRounds is how many races dsDeleteRacesSet runs. A conditional delete that reads the
// version and then deletes over one round trip (a natural window) is usually met in the first
// round; the rounds are there for a loaded machine, where a round's two calls may not overlap
// (docs/performance.md: 100 of 100 seeds, also under load).
const deleteRaceRounds = 24

// dsDeleteRacesSet races, round by round, a set and a delete of one key, both on the version the
// key has: exactly one wins (the other is a conflict), and the key then holds the set's value at
// the version it returned, or is gone (I-PLUGIN-5).
func dsDeleteRacesSet(ctx context.Context, c *DurableStateStoreCase) error {
	for r := 0; r < deleteRaceRounds; r++ {
		c.Progress(r, deleteRaceRounds)
		k := c.ExecID("delete-race")
		v, err := dsSet(ctx, c, k, fmt.Sprintf(`{"round":%d,"by":"create"}`, r), spi.IfVersion(0))
		if err != nil {
			return err
		}
		value := json.RawMessage(fmt.Sprintf(`{"round":%d,"by":"set"}`, r))
		var setV int64
		var setErr, delErr error
		var wg sync.WaitGroup
		gate := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer c.Recover()
			<-gate
			setV, setErr = c.Store.Set(ctx, k, value, spi.IfVersion(v))
		}()
		go func() {
			defer wg.Done()
			defer c.Recover()
			<-gate
			delErr = c.Store.Delete(ctx, k, spi.IfVersion(v))
		}()
		close(gate)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		args := fmt.Sprintf("%q, ifVersion %d) racing (Delete(%q, ifVersion %d)", k, v, k, v)
		if setErr != nil && !errors.Is(setErr, spi.ErrConflict) {
			return c.Failf("Set", args, setErr, "nil or a conflict")
		}
		if delErr != nil && !errors.Is(delErr, spi.ErrConflict) {
			return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d) racing (Set(%q, ifVersion %d)", k, v, k, v), delErr, "nil or a conflict")
		}
		switch {
		case setErr == nil && delErr == nil:
			return c.Failf("Set", args, "nil, and the delete also succeeded", "exactly one of them wins (both were conditioned on the same version)")
		case setErr != nil && delErr != nil:
			return c.Failf("Set", args, "a conflict, and the delete was refused too", "exactly one of them wins")
		}
		got, err := c.Store.Get(ctx, k)
		switch {
		case setErr == nil && err != nil:
			return c.Failf("Get", fmt.Sprintf("%q) after (a set on version %d won over a delete on it", k, v), err, fmt.Sprintf("the set's value at version %d", setV))
		case setErr == nil:
			if !spi.SameJSON(got.Value, value) || got.Version != setV {
				return c.Failf("Get", fmt.Sprintf("%q) after (a set on version %d won over a delete on it", k, v), fmt.Sprintf("%s at version %d", got.Value, got.Version), fmt.Sprintf("%s at version %d", value, setV))
			}
		case !errors.Is(err, spi.ErrNotFound):
			return c.Failf("Get", fmt.Sprintf("%q) after (a delete on version %d won over a set on it", k, v), entryOrErr(got, err), "not found")
		}
	}
	return nil
}
