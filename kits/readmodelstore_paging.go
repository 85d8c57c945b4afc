package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

func rmPagination(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("paged")
	ids := rmIDs(23)
	for _, id := range ids {
		if err := rmUpsert(ctx, c, m, id, fmt.Sprintf(`{"id":%q}`, id)); err != nil {
			return err
		}
	}
	want := docsCmpWant(ids, func(id string) string { return fmt.Sprintf(`{"id":%q}`, id) })
	for _, limit := range []int{1, 2, 5, 22, 23, 24, 1000} {
		got, err := rmAll(ctx, c, m, limit)
		if err != nil {
			return err
		}
		if err := c.Diff("Query", fmt.Sprintf("%q) every page at limit %d (", m, limit), want, nonNilDocs(got), envCmp); err != nil {
			return err
		}
	}
	// A full last page has no next cursor only when nothing follows it: with 23 documents at limit
	// 23 the first page must end the query.
	p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 23})
	if err != nil || len(p.Docs) != 23 || p.NextCursor != "" {
		return c.Failf("Query", fmt.Sprintf("%q, limit 23) of 23 documents (", m), pageOrErr(p, err), "23 documents and no next cursor")
	}
	p, err = c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 5})
	if err != nil || len(p.Docs) != 5 || p.NextCursor == "" {
		return c.Failf("Query", fmt.Sprintf("%q, limit 5) of 23 documents (", m), pageOrErr(p, err), "5 documents and a next cursor")
	}
	return nil
}

func rmLimitInvalid(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("limits")
	for _, id := range rmIDs(3) {
		if err := rmUpsert(ctx, c, m, id, `{}`); err != nil {
			return err
		}
	}
	if err := rmLimitsRefused(ctx, c, m, 0, -1, -1000, math.MinInt); err != nil {
		return err
	}
	for _, limit := range []int{1, spi.ReadModelMaxLimit} {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: limit})
		if limit > 1 && errors.Is(err, spi.ErrInvalidArgument) {
			// a smaller maximum, refused above it, is validation too: only our 1000 is missed
			return c.Cite("I-PLUGIN-19").Failf("Query", fmt.Sprintf("%q, limit %d", m, limit), pageOrErr(p, err), fmt.Sprintf("%d documents", min(limit, 3)))
		}
		if err != nil || len(p.Docs) != min(limit, 3) {
			return c.Failf("Query", fmt.Sprintf("%q, limit %d", m, limit), pageOrErr(p, err), fmt.Sprintf("%d documents", min(limit, 3)))
		}
	}
	return nil
}

// rmLimitMax: a limit above 1000 is an invalid argument, never clamped (I-PLUGIN-19).
func rmLimitMax(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("limits-max")
	if err := rmUpsert(ctx, c, m, "x", `{}`); err != nil {
		return err
	}
	return rmLimitsRefused(ctx, c, m, spi.ReadModelMaxLimit+1, 1<<31, math.MaxInt)
}

// rmLimitsRefused queries m with each limit and expects an invalid argument each time.
func rmLimitsRefused(ctx context.Context, c *ReadModelStoreCase, m string, limits ...int) error {
	for _, limit := range limits {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: limit})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q, limit %d", m, limit), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	return nil
}

func rmConcurrent(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("busy")
	var base []string
	for i := 0; i < 60; i++ {
		id := fmt.Sprintf("id-%04d", i*10)
		base = append(base, id)
		if err := rmUpsert(ctx, c, m, id, `{"v":0}`); err != nil {
			return err
		}
	}
	for round := 0; round < 3; round++ {
		c.Progress(round, 3)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var werr error
		var mu sync.Mutex
		// Writers report each upsert; the pager waits for two before each page (or for the writers
		// to finish), so upserts land between pages on every schedule, not only when the
		// scheduler happens to interleave them.
		progress := make(chan struct{}, 1024)
		writersDone := make(chan struct{})
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				defer c.Recover()
				for i := 0; i < 150; i++ {
					select {
					case <-stop:
						return
					default:
					}
					// New ids between and before the base ones, and rewrites of base ones.
					id := fmt.Sprintf("id-%04d-%d-%d-%d", ((i*13+w*7+round*5)%61)*10, round, w, i)
					if i%3 == 0 {
						id = base[(i*7+w)%len(base)]
					}
					if err := c.Store.Upsert(ctx, m, id, json.RawMessage(fmt.Sprintf(`{"v":%d}`, i))); err != nil {
						mu.Lock()
						werr = c.Failf("Upsert", fmt.Sprintf("%q, %q) while paging (", m, id), err, "nil")
						mu.Unlock()
						return
					}
					select {
					case progress <- struct{}{}:
					default:
					}
				}
			}(w)
		}
		go func() { wg.Wait(); close(writersDone) }()
		got, err := rmAllPaced(ctx, c, m, 3, func() {
			for i := 0; i < 2; i++ {
				select {
				case <-progress:
				case <-writersDone:
					return
				case <-ctx.Done():
					return
				}
			}
		})
		close(stop)
		wg.Wait()
		if werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		var ids []string
		seen := map[string]bool{}
		for _, d := range got {
			if seen[d.ID] {
				return c.Failf("Query", fmt.Sprintf("%q, limit 3) paging during upserts, round %d (", m, round), fmt.Sprintf("%q twice", d.ID), "each id once")
			}
			seen[d.ID] = true
			ids = append(ids, d.ID)
		}
		if !sort.StringsAreSorted(ids) {
			return c.Failf("Query", fmt.Sprintf("%q, limit 3) paging during upserts (", m), "ids out of order", "ascending ids")
		}
		for _, id := range base {
			if !seen[id] {
				return c.Failf("Query", fmt.Sprintf("%q, limit 3) paging during upserts, round %d (", m, round), fmt.Sprintf("%q, present throughout, skipped", id), "every id present throughout")
			}
		}
	}
	return nil
}

// rmQueryByteOrder: ids that differ only by case, trailing space or normal form are listed in byte
// order, on one page and paged (I-STORE-28).
func rmQueryByteOrder(ctx context.Context, c *ReadModelStoreCase) error {
	return rmQueryByteOrderIDs(ctx, c, func(names []string) []string { return names }, "")
}

// rmQueryIDsApart: ids that differ only by case, trailing space or normal form are listed once
// each, in whatever order, on one page and paged (I-PLUGIN-14, I-PLUGIN-10).
func rmQueryIDsApart(ctx context.Context, c *ReadModelStoreCase) error {
	return rmQueryByteOrderIDs(ctx, c, func(names []string) []string { return slices.Sorted(slices.Values(names)) }, " in any order,")
}

// rmQueryByteOrderIDs upserts the ids of byteOrderIDs, pages through them at several limits and
// compares order(ids as listed) with the ids in byte order.
func rmQueryByteOrderIDs(ctx context.Context, c *ReadModelStoreCase, order func([]string) []string, how string) error {
	m := c.ExecID("order")
	ids, asc := byteOrderIDs("")
	for _, id := range ids {
		if err := rmUpsert(ctx, c, m, id, `{}`); err != nil {
			return err
		}
	}
	for _, limit := range []int{1000, 1, 3} {
		got, err := rmAll(ctx, c, m, limit)
		if err != nil {
			return err
		}
		names := make([]string, len(got))
		for i, d := range got {
			names[i] = d.ID
		}
		if err := c.Diff("Query", fmt.Sprintf("%q, limit %d) ids only,%s paged to the end, ids differing by case, trailing space and normal form (", m, limit, how), asc, order(names)); err != nil {
			return err
		}
	}
	return nil
}
