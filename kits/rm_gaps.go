package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// rmGapChecks apply the cross-seam rules to the ReadModelStore: models and ids on every method,
// listings in byte order, upserts that replace the whole document, and upserts seen whole by
// concurrent readers.
func rmGapChecks() []Check[spi.ReadModelStore] {
	type C = Check[spi.ReadModelStore]
	return []C{
		{ID: "readmodelstore/ids-apart-every-method", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-PLUGIN-9", "I-STORE-4"}, Level: spec.Must,
			Doc: "upsert, query and cursors keep ids, and models, apart that differ only by case, trailing space or normal form, or extend one another (also after : / . |); a cursor of either model of a pair is refused by the other", Run: rmIDsEveryMethod},
		{ID: "readmodelstore/names-with-delimiters", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-STORE-4"}, Level: spec.Must,
			Doc: "a model and an id that hold a delimiter stores join names with (: / . |) stay themselves: (m, \"a:x\") and (\"m:a\", \"x\") are two documents of two models, and querying m lists none of m:a's, on one page and paged at limit 1", Run: rmNamesWithDelimiters},
		{ID: "readmodelstore/query-byte-order", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-STORE-28"}, Level: spec.Must,
			Doc: "query lists ids that differ only by case, trailing space or normal form once each, in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order), on one page and paged at limits 1 and 3", Run: rmQueryByteOrder},
		{ID: "readmodelstore/upsert-replaces-whole", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-10", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "an upsert replaces the whole document: keys the new object lacks are gone, nested objects are not merged, and a document differing only in a number a double cannot tell apart is stored", Run: rmUpsertReplacesWhole},
		{ID: "readmodelstore/readers-whole-upsert", Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-10"}, Level: spec.Must,
			Doc: "readers querying while documents are upserted again always list every id present throughout, each document no older than one they saw (sees a replace visible half-done for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: rmReadersWholeUpsert},
	}
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

func rmQueryByteOrder(ctx context.Context, c *ReadModelStoreCase) error {
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
		if err := c.Diff("Query", fmt.Sprintf("%q, limit %d) ids only, paged to the end, ids differing by case, trailing space and normal form (", m, limit), asc, names); err != nil {
			return err
		}
	}
	return nil
}

func rmUpsertReplacesWhole(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("whole")
	for _, w := range []struct{ how, doc string }{
		{"a first document", `{"a":1,"b":{"x":1,"y":2},"c":[1,2],"flag":true}`},
		{"an object lacking keys of the stored one", `{"b":{"x":3},"d":null}`},
		{"an empty object", `{}`},
		{"a document with a number beyond 2^64", bigValue},
		{"a document differing from it only in that number", bigValueNext},
	} {
		if err := rmUpsert(ctx, c, m, "doc", w.doc); err != nil {
			return err
		}
		got, err := rmAll(ctx, c, m, 10)
		if err != nil {
			return err
		}
		if err := c.Diff("Query", fmt.Sprintf("%q) after (an upsert of %s", m, w.how), docsCmpWant([]string{"doc"}, func(string) string { return w.doc }), nonNilDocs(got), envCmp); err != nil {
			return err
		}
	}
	return nil
}

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
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 1000})
		if err != nil {
			return c.Failf("Query", fmt.Sprintf("%q, limit 1000) racing upserts (", m), err, "nil")
		}
		seen := map[string]bool{}
		for _, d := range p.Docs {
			var x struct{ Gen *int }
			if json.Unmarshal(d.Doc, &x) != nil || x.Gen == nil {
				return c.Failf("Query", fmt.Sprintf("%q, limit 1000) racing upserts (", m), fmt.Sprintf("%q: %s", d.ID, clipS(string(d.Doc))), `{"gen":<n>}`)
			}
			if *x.Gen < last[r][d.ID] || (after && *x.Gen != g+1) {
				return c.Failf("Query", fmt.Sprintf("%q, limit 1000) racing upserts of generation %d, after this reader saw %q at gen %d (", m, g+1, d.ID, last[r][d.ID]), fmt.Sprintf("gen %d", *x.Gen), "no older document, and the new one once the upserts returned")
			}
			last[r][d.ID] = *x.Gen
			seen[d.ID] = true
		}
		for _, id := range ids {
			if !seen[id] {
				return c.Failf("Query", fmt.Sprintf("%q, limit 1000) racing upserts of ids present throughout (", m), fmt.Sprintf("%d documents, %q missing", len(p.Docs), id), fmt.Sprintf("all %d", n))
			}
		}
		return nil
	})
}
