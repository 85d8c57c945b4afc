package kits

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func esListByteOrder(ctx context.Context, c *EventStoreCase) error {
	lister := c.Store.(spi.ExecutionLister)
	base := c.ExecID("order")
	ids, want := byteOrderIDs(base + "/")
	for _, x := range ids {
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "listed"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	got := []string{}
	cursor := base + "/"
	for pages := 0; ; pages++ {
		if pages > 2*len(ids)+2 {
			return c.Failf("ListExecutionsPage", fmt.Sprintf("from %q, limit 3", base+"/"), fmt.Sprintf("more than %d pages", pages), fmt.Sprintf("%d ids in at most %d pages", len(ids), len(ids)/3+1))
		}
		page, err := lister.ListExecutionsPage(ctx, cursor, 3)
		if err != nil {
			return c.Failf("ListExecutionsPage", fmt.Sprintf("%q, 3", cursor), err, "nil")
		}
		stop := page.Next == ""
		for _, x := range page.ExecutionIDs {
			if !strings.HasPrefix(x, base+"/") {
				stop = true
				break
			}
			got = append(got, x)
		}
		if stop || len(page.ExecutionIDs) == 0 {
			break
		}
		cursor = page.Next
	}
	return c.Diff("ListExecutionsPage", fmt.Sprintf("from %q, limit 3) paging ids that differ by case, trailing space and normal form (", base+"/"), want, got)
}

// listAll pages through the ids that start with prefix: it starts at the cursor prefix (any string is
// a cursor, I-STORE-13, and every id with the prefix sorts after it) and stops at the first id past
// them, so what else a shared target holds does not matter.
func listAll(ctx context.Context, c *EventStoreCase, prefix string, limit int, between func(page int) error) ([]string, error) {
	l := c.Store.(spi.ExecutionLister)
	var out []string
	cursor := prefix
	for page := 0; ; page++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		args := fmt.Sprintf("%q, %d", cursor, limit)
		p, err := l.ListExecutionsPage(ctx, cursor, limit)
		if err != nil {
			return nil, c.Failf("ListExecutionsPage", args, err, "nil")
		}
		if len(p.ExecutionIDs) > limit {
			return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("%d ids", len(p.ExecutionIDs)), fmt.Sprintf("at most %d", limit))
		}
		for _, id := range p.ExecutionIDs {
			if id <= cursor {
				return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q (page %d)", id, page), "ids strictly after the cursor")
			}
			if n := len(out); n > 0 && out[n-1] >= id {
				return nil, c.Failf("ListExecutionsPage", args,
					fmt.Sprintf("%q after %q (page %d)", id, out[n-1], page), "ascending ids, none repeated")
			}
			if !strings.HasPrefix(id, prefix) {
				return out, nil // past the ids of this check
			}
			out = append(out, id)
		}
		if p.Next == "" {
			return out, nil
		}
		if p.Next <= cursor {
			return nil, c.Failf("ListExecutionsPage", args, fmt.Sprintf("next cursor %q (no progress)", p.Next), "a later cursor")
		}
		cursor = p.Next
		if between != nil {
			if err := between(page); err != nil {
				return nil, err
			}
		}
	}
}

func checkListing(c *EventStoreCase, listed []string, mustOnce []string, args string) error {
	count := map[string]int{}
	for i, id := range listed {
		count[id]++
		if count[id] > 1 {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q listed twice", id), "every id once")
		}
		if i > 0 && listed[i-1] >= id {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q after %q", id, listed[i-1]), "ascending ids")
		}
	}
	for _, id := range mustOnce {
		if count[id] != 1 {
			return c.Failf("ListExecutionsPage", args, fmt.Sprintf("%q listed %d times", id, count[id]), "exactly once")
		}
	}
	return nil
}

func esListPages(ctx context.Context, c *EventStoreCase) error {
	prefix := c.ExecID("list")
	var ids []string
	for i := 0; i < 23; i++ {
		x := fmt.Sprintf("%s-%02d", prefix, i)
		ids = append(ids, x)
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "l"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	for _, limit := range []int{1, 5, 23, 1000} {
		got, err := listAll(ctx, c, prefix, limit, nil)
		if err != nil {
			return err
		}
		if e := checkListing(c, got, ids, fmt.Sprintf("pages of %d", limit)); e != nil {
			return e
		}
	}
	// Only executions with a stored envelope are listed (I-STORE-13): not one deleted by
	// deleteExecution, nor one whose every envelope deleteThrough removed.
	var gone []string
	if spi.Has(manifest.SeamEventStore, c.Store, spi.MethodDeleteExecution) {
		x := ids[3]
		if err := c.Store.(spi.ExecutionDeleter).DeleteExecution(ctx, x); err != nil {
			return c.Failf("DeleteExecution", fmt.Sprintf("%q", x), err, "nil")
		}
		gone = append(gone, x)
	}
	if spi.Has(manifest.SeamEventStore, c.Store, spi.MethodDeleteThrough) {
		x := ids[7]
		if err := c.Store.(spi.ThroughDeleter).DeleteThrough(ctx, x, 5); err != nil {
			return c.Failf("DeleteThrough", fmt.Sprintf("%q, 5", x), err, "nil")
		}
		gone = append(gone, x)
	}
	if len(gone) > 0 {
		got, err := listAll(ctx, c, prefix, 5, nil)
		if err != nil {
			return err
		}
		var left []string
		for _, id := range ids {
			if !slices.Contains(gone, id) {
				left = append(left, id)
			}
		}
		if d := c.Diff("ListExecutionsPage", fmt.Sprintf("pages of 5) after deleting %q (", gone), left, got); d != nil {
			return d
		}
	}
	_, err := c.Store.(spi.ExecutionLister).ListExecutionsPage(ctx, "", 0)
	return expectErr(c, "ListExecutionsPage", `"", 0`, err, spi.ErrInvalidArgument)
}

func esListConcurrent(ctx context.Context, c *EventStoreCase) error {
	prefix := c.ExecID("lc")
	var ids []string
	for i := 0; i < 30; i += 2 {
		x := fmt.Sprintf("%s-%03d", prefix, i*10)
		ids = append(ids, x)
		if err := appendOK(ctx, c, x, batch(x, 0, 1, "pre"), spi.AppendOptions{}); err != nil {
			return err
		}
	}
	inserted := 0
	between := func(page int) error {
		if page >= 8 {
			return nil
		}
		// Insert ids before, between and after the ones already listed.
		for j, k := range []int{page*20 + 5, page*20 + 15, 1, 299 - page} {
			x := fmt.Sprintf("%s-%03d-new%d-%d", prefix, k, page, j)
			inserted++
			if err := appendOK(ctx, c, x, batch(x, 0, 1, "new"), spi.AppendOptions{}); err != nil {
				return err
			}
		}
		return nil
	}
	got, err := listAll(ctx, c, prefix, 3, between)
	if err != nil {
		return err
	}
	return checkListing(c, got, ids, fmt.Sprintf("pages of 3 with %d concurrent inserts", inserted))
}
