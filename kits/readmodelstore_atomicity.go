package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func rmReadersWholeUpsert(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("readers-upsert")
	const n, rounds, readers = 12, 6, 2
	ids := rmIDs(n)
	for _, id := range ids {
		if err := rmUpsert(ctx, c, m, id, `{"gen":0}`); err != nil {
			return err
		}
	}
	last := make([]map[string]int, readers) // per reader, the gen it last saw of each id
	for r := range last {
		last[r] = map[string]int{}
	}
	// Round g upserts every id again at generation g+1.
	return readersRace(ctx, c, readers, rounds, func(ctx context.Context, g int) error {
		for _, id := range ids {
			if err := rmUpsert(ctx, c, m, id, fmt.Sprintf(`{"gen":%d}`, g+1)); err != nil {
				return err
			}
		}
		return nil
	}, func(r, g int, after bool) error {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: n}) // one page holds every id
		if err != nil {
			return c.Failf("Query", fmt.Sprintf("%q, limit %d) racing upserts (", m, n), err, "nil")
		}
		seen := map[string]bool{}
		for _, d := range p.Docs {
			var x struct{ Gen *int }
			if json.Unmarshal(d.Doc, &x) != nil || x.Gen == nil {
				return c.Failf("Query", fmt.Sprintf("%q, limit %d) racing upserts (", m, n), fmt.Sprintf("%q: %s", d.ID, clipS(string(d.Doc))), `{"gen":<n>}`)
			}
			if *x.Gen < last[r][d.ID] || (after && *x.Gen != g+1) {
				return c.Failf("Query", fmt.Sprintf("%q, limit %d) racing upserts of generation %d, after this reader saw %q at gen %d (", m, n, g+1, d.ID, last[r][d.ID]), fmt.Sprintf("gen %d", *x.Gen), "no older document, and the new one once the upserts returned")
			}
			last[r][d.ID] = *x.Gen
			seen[d.ID] = true
		}
		for _, id := range ids {
			if !seen[id] {
				return c.Failf("Query", fmt.Sprintf("%q, limit %d) racing upserts of ids present throughout (", m, n), fmt.Sprintf("%d documents, %q missing", len(p.Docs), id), fmt.Sprintf("all %d", n))
			}
		}
		return nil
	})
}
