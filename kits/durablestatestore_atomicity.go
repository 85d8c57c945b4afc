package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// dsSeen is one value a reader saw: the set number in it and the version it came with.
type dsSeen struct {
	i       int
	version int64
}

func dsReadersWholeSet(ctx context.Context, c *DurableStateStoreCase) error {
	k := c.ExecID("readers-set")
	const rounds, readers = 16, 2
	pad := strings.Repeat("p", 2000)
	value := func(i int) string { return fmt.Sprintf(`{"i":%d,"pad":%q}`, i, pad) }
	v0, err := dsSet(ctx, c, k, value(0), spi.IfVersion(0))
	if err != nil {
		return err
	}
	var mu sync.Mutex
	versions := map[int]int64{0: v0}
	var seen []dsSeen
	last := make([]dsSeen, readers) // per reader, the last value it saw
	err = readersRace(ctx, c, readers, rounds, func(ctx context.Context, i int) error {
		v, err := dsSet(ctx, c, k, value(i+1), spi.Precondition{})
		if err != nil {
			return err
		}
		mu.Lock()
		versions[i+1] = v
		mu.Unlock()
		return nil
	}, func(r, i int, after bool) error {
		got, err := c.Store.Get(ctx, k)
		if err != nil {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets of a key that exists throughout (", k), err, "the value of one set")
		}
		var x struct{ I int }
		if json.Unmarshal(got.Value, &x) != nil {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), clipS(string(got.Value)), "the value of one set")
		}
		s := dsSeen{x.I, got.Version}
		if s.version < last[r].version || s.i < last[r].i {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets, after this reader saw set %d at version %d (", k, last[r].i, last[r].version), fmt.Sprintf("set %d at version %d", s.i, s.version), "no older set, no lower version")
		}
		mu.Lock()
		prev, known := versions[s.i-1]
		mu.Unlock()
		if known && s.i > 0 && s.version <= prev {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), fmt.Sprintf("the value of set %d at version %d", s.i, s.version), fmt.Sprintf("a version above set %d's, %d", s.i-1, prev))
		}
		if after && s.i != i+1 {
			return c.Failf("Get", fmt.Sprintf("%q) after set %d returned (", k, i+1), fmt.Sprintf("the value of set %d", s.i), fmt.Sprintf("the value of set %d", i+1))
		}
		last[r] = s
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range seen {
		if want, ok := versions[s.i]; !ok || s.version != want {
			return c.Failf("Get", fmt.Sprintf("%q) racing sets (", k), fmt.Sprintf("the value of set %d at version %d", s.i, s.version), fmt.Sprintf("the version set %d returned, %d", s.i, want))
		}
	}
	return nil
}
