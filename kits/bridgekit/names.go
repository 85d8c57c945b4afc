package bridgekit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// loneSurrogateID is the JSON text of an id that ends in an unpaired surrogate escape, and the id a
// decoder that replaces the surrogate with U+FFFD reads.
func loneSurrogateID(c *Case, name string) (raw, replaced string) {
	x := c.ExecID(name)
	q := quote(x)
	return q[:len(q)-1] + `\ud800"`, x + "\ufffd"
}

// bkLoneSurrogateIDs: a name is a string of Unicode scalar values; a write whose id holds a lone
// surrogate is refused (-32602 or -32005) and stores nothing, also not under the id a decoder
// replacing the surrogate reads (I-STORE-81), on every served seam that writes by id and reads it
// back.
func bkLoneSurrogateIDs(ctx context.Context, c *Case) error {
	type probe struct {
		method, params, replaced string
		stored                   func(id string) (bool, error)
	}
	var probes []probe
	if es := c.Store.EventStore(); es != nil {
		raw, replaced := loneSurrogateID(c, "lone-events")
		e, _ := json.Marshal(probeEnv("placeholder", 0))
		probes = append(probes, probe{"eventStore.append", fmt.Sprintf(`{"executionId":%s,"events":[%s]}`, raw, strings.Replace(string(e), `"placeholder"`, raw, 1)), replaced,
			func(x string) (bool, error) { got, err := es.Read(ctx, x); return len(got) > 0, err }})
	}
	if ss := c.Store.SnapshotStore(); ss != nil {
		raw, replaced := loneSurrogateID(c, "lone-snapshot")
		probes = append(probes, probe{"snapshotStore.save", fmt.Sprintf(`{"snapshot":{"executionId":%s,"sequence":0,"state":{"status":"pending"}}}`, raw), replaced,
			func(x string) (bool, error) { return found(ss.LoadLatest(ctx, x)) }})
	}
	if ds := c.Store.DurableStateStore(); ds != nil {
		raw, replaced := loneSurrogateID(c, "lone-key")
		probes = append(probes, probe{"durableStateStore.set", fmt.Sprintf(`{"key":%s,"value":1}`, raw), replaced,
			func(x string) (bool, error) { return found(ds.Get(ctx, x)) }})
	}
	if rm := c.Store.ReadModelStore(); rm != nil {
		raw, replaced := loneSurrogateID(c, "lone-model")
		probes = append(probes, probe{"readModelStore.upsert", fmt.Sprintf(`{"model":%s,"id":"x","doc":{}}`, raw), replaced,
			func(x string) (bool, error) {
				p, err := rm.Query(ctx, x, spi.ReadModelQuery{Limit: 1})
				return len(p.Docs) > 0, err
			}})
	}
	if len(probes) == 0 {
		return c.Skip("the bridge serves no seam that writes by id and reads it back (EventStore, SnapshotStore, DurableStateStore, ReadModelStore)")
	}
	for _, p := range probes {
		_, err := c.Store.CallRaw(ctx, p.method, json.RawMessage(p.params))
		if e := wantCode(c, p.method, p.params, err, invalidCodes...); e != nil {
			return e
		}
		stored, err := p.stored(p.replaced)
		if err != nil {
			if perr := protocolBreach(c, p.method, err); perr != nil {
				return perr
			}
			return c.Failf(p.method, fmt.Sprintf("%q) read back after (the refused write", p.replaced), err, "an answer")
		}
		if stored {
			return c.Failf(p.method, p.params, fmt.Sprintf("stored under %q (the surrogate replaced by U+FFFD)", p.replaced), "nothing stored")
		}
	}
	return nil
}

// found turns a read that answers not found into false.
func found[T any](_ T, err error) (bool, error) {
	if errors.Is(err, spi.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
