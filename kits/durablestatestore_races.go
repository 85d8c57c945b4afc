package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// deleteRaceRounds is how many races dsDeleteRacesSet runs, deleteRaceSetters how many sets race
// the delete in each, and deleteRaceStagger how long each set after the first waits more than the
// one before it. A conditional delete that reads the version and then deletes over one round trip
// (a natural window) is met by the first set, sent with the delete, in process; behind the store
// bridge each call is an HTTP round trip whose jitter is wider than such a window, and a set meets
// it only when it arrives just after the delete: the later sets spread over a loopback round
// trip's length so that one of them does. (Sent all at once, three sets over 64 rounds missed a
// round-trip window on 11 seeds in 100 on a loaded machine: the delete had to come first among
// four; docs/performance.md, "Race detection on natural windows".)
const (
	deleteRaceRounds  = 384
	deleteRaceSetters = 5
	deleteRaceStagger = 25 * time.Microsecond
)

// dsDeleteRacesSet races, round by round, sets and a delete of one key, all on the version the key
// has: exactly one wins (the others are conflicts), and the key then holds the winning set's value
// at the version it returned, or is gone (I-PLUGIN-5).
func dsDeleteRacesSet(ctx context.Context, c *DurableStateStoreCase) error {
	for r := 0; r < deleteRaceRounds; r++ {
		c.Progress(r, deleteRaceRounds)
		k := c.ExecID("delete-race")
		v, err := dsSet(ctx, c, k, fmt.Sprintf(`{"round":%d,"by":"create"}`, r), spi.IfVersion(0))
		if err != nil {
			return err
		}
		values := make([]json.RawMessage, deleteRaceSetters)
		setV := make([]int64, deleteRaceSetters)
		setErr := make([]error, deleteRaceSetters)
		var delErr error
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := range values {
			values[i] = json.RawMessage(fmt.Sprintf(`{"round":%d,"by":"set %d"}`, r, i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Recover()
				<-gate
				spin(ctx, time.Duration(i)*deleteRaceStagger)
				setV[i], setErr[i] = c.Store.Set(ctx, k, values[i], spi.IfVersion(v))
			}()
		}
		wg.Add(1)
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
		args := fmt.Sprintf("%q, ifVersion %d) racing (Delete(%q, ifVersion %d) and %d more sets on that version", k, v, k, v, deleteRaceSetters-1)
		won := -1 // the set that won
		for i, err := range setErr {
			switch {
			case err != nil && !errors.Is(err, spi.ErrConflict):
				return c.Failf("Set", args, err, "nil or a conflict")
			case err == nil && won >= 0:
				return c.Failf("Set", args, "nil, and another set on that version also succeeded", "exactly one of them wins (all were conditioned on the same version)")
			case err == nil:
				won = i
			}
		}
		if delErr != nil && !errors.Is(delErr, spi.ErrConflict) {
			return c.Failf("Delete", fmt.Sprintf("%q, ifVersion %d) racing (%d sets on that version", k, v, deleteRaceSetters), delErr, "nil or a conflict")
		}
		switch {
		case won >= 0 && delErr == nil:
			return c.Failf("Set", args, "nil, and the delete also succeeded", "exactly one of them wins (all were conditioned on the same version)")
		case won < 0 && delErr != nil:
			return c.Failf("Set", args, "a conflict for every set, and the delete was refused too", "exactly one of them wins")
		}
		got, err := c.Store.Get(ctx, k)
		switch {
		case won >= 0 && err != nil:
			return c.Failf("Get", fmt.Sprintf("%q) after (a set on version %d won over a delete on it", k, v), err, fmt.Sprintf("the set's value at version %d", setV[won]))
		case won >= 0:
			if !spi.SameJSON(got.Value, values[won]) || got.Version != setV[won] {
				return c.Failf("Get", fmt.Sprintf("%q) after (a set on version %d won over a delete on it", k, v), fmt.Sprintf("%s at version %d", got.Value, got.Version), fmt.Sprintf("%s at version %d", values[won], setV[won]))
			}
		case !errors.Is(err, spi.ErrNotFound):
			return c.Failf("Get", fmt.Sprintf("%q) after (a delete on version %d won over a set on it", k, v), entryOrErr(got, err), "not found")
		}
	}
	return nil
}
