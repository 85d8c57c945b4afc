package kits

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/spi"
)

func rmIsolation(ctx context.Context, c *ReadModelStoreCase) error {
	base := c.ExecID("Model")
	models := []string{base, base + "x", base + "/", upper(base), base + " "}
	for i, m := range models {
		if err := rmUpsert(ctx, c, m, "id", fmt.Sprintf(`{"model":%d}`, i)); err != nil {
			return err
		}
		if err := rmUpsert(ctx, c, m, fmt.Sprintf("only-%d", i), `{}`); err != nil {
			return err
		}
	}
	for i, m := range models {
		got, err := rmAll(ctx, c, m, 10)
		if err != nil {
			return err
		}
		want := docsCmpWant([]string{"id", fmt.Sprintf("only-%d", i)}, func(id string) string {
			if id == "id" {
				return fmt.Sprintf(`{"model":%d}`, i)
			}
			return `{}`
		})
		if err := c.Diff("Query", fmt.Sprintf("%q) after (upserts into models that resemble it", m), want, nonNilDocs(got), envCmp); err != nil {
			return err
		}
	}
	return nil
}

func rmIDsEveryMethod(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("ids")
	var ids []string
	for _, p := range idPairs("id") {
		for _, id := range p {
			if err := rmUpsert(ctx, c, m, id, fmt.Sprintf(`{"id":%q}`, id)); err != nil {
				return err
			}
			ids = append(ids, id)
		}
	}
	asc := append([]string(nil), ids...)
	sort.Strings(asc) // byte order
	got, err := rmAll(ctx, c, m, 1000)
	if err != nil {
		return err
	}
	want := docsCmpWant(asc, func(id string) string { return fmt.Sprintf(`{"id":%q}`, id) })
	if err := c.Diff("Query", fmt.Sprintf("%q) after upserts of ids differing only by case, trailing space or normal form, or extending one another (", m), want, nonNilDocs(got), envCmp); err != nil {
		return err
	}
	for _, p := range idPairs(c.ExecID("model")) {
		for i, model := range p {
			for _, id := range []string{"x", "y", fmt.Sprintf("only-%d", i)} {
				if err := rmUpsert(ctx, c, model, id, fmt.Sprintf(`{"model":%d}`, i)); err != nil {
					return err
				}
			}
		}
		for i, model := range p {
			got, err := rmAll(ctx, c, model, 1000)
			if err != nil {
				return err
			}
			want := docsCmpWant([]string{fmt.Sprintf("only-%d", i), "x", "y"}, func(string) string { return fmt.Sprintf(`{"model":%d}`, i) })
			if err := c.Diff("Query", fmt.Sprintf("%q) next to (%q", model, p[1-i]), want, nonNilDocs(got), envCmp); err != nil {
				return err
			}
		}
		for _, way := range [][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			first, err := c.Store.Query(ctx, way[0], spi.ReadModelQuery{Limit: 1})
			if err != nil || first.NextCursor == "" {
				return c.Failf("Query", fmt.Sprintf("%q, limit 1) of 3 documents (", way[0]), pageOrErr(first, err), "a next cursor")
			}
			page, err := c.Store.Query(ctx, way[1], spi.ReadModelQuery{Limit: 1, Cursor: first.NextCursor})
			if !errors.Is(err, spi.ErrInvalidArgument) {
				return c.Failf("Query", fmt.Sprintf("%q) with a cursor issued for (%q", way[1], way[0]), pageOrErr(page, err), "an invalid-argument error")
			}
		}
	}
	return nil
}

func rmNamesWithDelimiters(ctx context.Context, c *ReadModelStoreCase) error {
	for _, d := range delimiters {
		// A store keying documents by model + d + id gives (m, "a"+d+"x") and (m+d+"a", "x") one
		// key, and one that queries m by the key prefix m + d also lists m+d+"a"'s documents.
		m := c.ExecID("orders")
		sub := m + d + "archive"
		docs := map[string][][2]string{
			m:   {{"archive" + d + "x", `{"in":"outer"}`}, {"y", `{"in":"outer"}`}},
			sub: {{"x", `{"in":"inner"}`}},
		}
		for _, model := range []string{sub, m} {
			for _, x := range docs[model] {
				if err := rmUpsert(ctx, c, model, x[0], x[1]); err != nil {
					return err
				}
			}
		}
		for _, model := range []string{m, sub} {
			var ids []string
			doc := map[string]string{}
			for _, x := range docs[model] {
				ids = append(ids, x[0])
				doc[x[0]] = x[1]
			}
			sort.Strings(ids)
			for _, limit := range []int{1000, 1} {
				got, err := rmAll(ctx, c, model, limit)
				if err != nil {
					return err
				}
				if err := c.Diff("Query", fmt.Sprintf("%q, limit %d) next to model (%q", model, limit, other(model, m, sub)),
					docsCmpWant(ids, func(id string) string { return doc[id] }), nonNilDocs(got), envCmp); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
