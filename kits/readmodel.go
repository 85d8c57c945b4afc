package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ReadModelStoreCase is what a ReadModelStore check runs against.
type ReadModelStoreCase = Case[spi.ReadModelStore]

// ReadModelStoreKit is the ReadModelStore conformance kit (spec §7, plugin tier).
func ReadModelStoreKit() Kit[spi.ReadModelStore] {
	type C = Check[spi.ReadModelStore]
	return Kit[spi.ReadModelStore]{Name: "readmodelstore", Seam: manifest.SeamReadModelStore, Checks: append([]C{
		{ID: "readmodelstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ReadModelStoreCase) error {
				return versionClaim(c, manifest.SeamReadModelStore)
			}},
		{ID: "readmodelstore/upsert-query", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-10", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "upserted documents read back by JSON value, ascending by id; a second upsert replaces", Run: rmUpsertQuery},
		{ID: "readmodelstore/roundtrip-precision", Clauses: []string{"I-PLUGIN-7", "I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold read back exactly", Run: rmPrecision},
		{ID: "readmodelstore/model-isolation", Clauses: []string{"I-PLUGIN-10", "I-STORE-4"}, Level: spec.Must,
			Doc: "models whose names extend one another or differ by case hold their own documents", Run: rmIsolation},
		{ID: "readmodelstore/pagination", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "pages of every limit tile the model exactly: at most limit each, full until the last, nextCursor empty only after the last", Run: rmPagination},
		{ID: "readmodelstore/limit-invalid", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-8"}, Level: spec.Must,
			Doc: "limits 0, negative, above 1000 and huge are invalid arguments; 1 and 1000 are served", Run: rmLimitInvalid},
		{ID: "readmodelstore/cursor-forged", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "a cursor the store never issued (random, truncated, pointed at another id of the same model, altered in one character anywhere) is an invalid argument", Run: rmCursorForged},
		{ID: "readmodelstore/cursor-foreign", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "a cursor issued for another model is an invalid argument", Run: rmCursorForeign},
		{ID: "readmodelstore/cursor-stale-resumes", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "a cursor kept while documents are upserted before and after it resumes right after its page: no id present throughout is skipped or repeated", Run: rmCursorStale},
		{ID: "readmodelstore/pagination-concurrent", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "paging while writers upsert new and existing ids (two upserts land before each page) lists every id present throughout exactly once, ascending", Run: rmConcurrent},
		{ID: "readmodelstore/invalid", Clauses: []string{"I-PLUGIN-10"}, Level: spec.Must,
			Doc: "an empty model or id, or a document that is not JSON, is an invalid argument and changes nothing", Run: rmInvalid},
	}, rmGapChecks()...)}
}

// CheckReadModelStore runs the ReadModelStore kit and returns errors.Join of every failure and unknown.
func CheckReadModelStore(ctx context.Context, factory Factory[spi.ReadModelStore], opts Options) error {
	results, err := Run(ctx, ReadModelStoreKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func rmUpsert(ctx context.Context, c *ReadModelStoreCase, model, id, doc string) error {
	if err := c.Store.Upsert(ctx, model, id, json.RawMessage(doc)); err != nil {
		return c.Failf("Upsert", fmt.Sprintf("%q, %q", model, id), err, "nil")
	}
	return nil
}

// rmAll pages through model with limit and returns every document, failing on a bad page.
func rmAll(ctx context.Context, c *ReadModelStoreCase, model string, limit int) ([]spi.ReadModelDoc, error) {
	return rmAllPaced(ctx, c, model, limit, nil)
}

// rmAllPaced is rmAll calling between (when set) before every page after the first.
func rmAllPaced(ctx context.Context, c *ReadModelStoreCase, model string, limit int, between func()) ([]spi.ReadModelDoc, error) {
	var out []spi.ReadModelDoc
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 0 && between != nil {
			between()
		}
		if pages > 10000 {
			return nil, c.Failf("Query", fmt.Sprintf("%q, limit %d", model, limit), "more than 10 000 pages", "an end")
		}
		p, err := c.Store.Query(ctx, model, spi.ReadModelQuery{Limit: limit, Cursor: cursor})
		if err != nil {
			return nil, c.Failf("Query", fmt.Sprintf("%q, limit %d, page %d", model, limit, pages+1), err, "nil")
		}
		if len(p.Docs) > limit {
			return nil, c.Failf("Query", fmt.Sprintf("%q, limit %d, page %d", model, limit, pages+1), fmt.Sprintf("%d documents", len(p.Docs)), fmt.Sprintf("at most %d", limit))
		}
		if p.NextCursor != "" && len(p.Docs) < limit {
			return nil, c.Failf("Query", fmt.Sprintf("%q, limit %d, page %d) a short page with a next cursor (", model, limit, pages+1), fmt.Sprintf("%d documents", len(p.Docs)), fmt.Sprintf("%d, or no next cursor", limit))
		}
		out = append(out, p.Docs...)
		if p.NextCursor == "" {
			return out, nil
		}
		cursor = p.NextCursor
	}
}

func docsCmpWant(ids []string, doc func(id string) string) []spi.ReadModelDoc {
	out := []spi.ReadModelDoc{}
	for _, id := range ids {
		out = append(out, spi.ReadModelDoc{ID: id, Doc: json.RawMessage(doc(id))})
	}
	return out
}

func nonNilDocs(d []spi.ReadModelDoc) []spi.ReadModelDoc {
	if d == nil {
		return []spi.ReadModelDoc{}
	}
	return d
}

func rmUpsertQuery(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("orders")
	docs := map[string]string{"b": `{"total":2,"items":["x","y"]}`, "a": `{"total":1,"note":"é ✓"}`, "c": `[1,2,3]`, "a/1": `"scalar"`, "A": `null`}
	for _, id := range []string{"b", "a", "c", "a/1", "A"} {
		if err := rmUpsert(ctx, c, m, id, docs[id]); err != nil {
			return err
		}
	}
	if err := rmUpsert(ctx, c, m, "b", `{"total":3,"replaced":true}`); err != nil {
		return err
	}
	docs["b"] = `{"total":3,"replaced":true}`
	got, err := rmAll(ctx, c, m, 100)
	if err != nil {
		return err
	}
	want := docsCmpWant([]string{"A", "a", "a/1", "b", "c"}, func(id string) string { return docs[id] })
	if err := c.Diff("Query", fmt.Sprintf("%q, limit 100", m), want, nonNilDocs(got), envCmp); err != nil {
		return err
	}
	p, err := c.Store.Query(ctx, c.ExecID("empty"), spi.ReadModelQuery{Limit: 10})
	if err != nil || len(p.Docs) != 0 || p.NextCursor != "" {
		return c.Failf("Query", "a model never written, limit 10", pageOrErr(p, err), "no documents and no next cursor")
	}
	return nil
}

func pageOrErr(p spi.ReadModelPage, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("%d documents, next cursor %q", len(p.Docs), clipS(p.NextCursor))
}

func rmPrecision(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("precise")
	doc := `{"n":12345678901234567890,"big":123456789012345678901234567890,"pi":3.141592653589793238462643383279}`
	if err := rmUpsert(ctx, c, m, "x", doc); err != nil {
		return err
	}
	got, err := rmAll(ctx, c, m, 10)
	if err != nil {
		return err
	}
	return c.Diff("Query", fmt.Sprintf("%q) after (an upsert with numbers a double cannot hold", m), docsCmpWant([]string{"x"}, func(string) string { return doc }), nonNilDocs(got), envCmp)
}

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

func rmIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("id-%04d", i)
	}
	return ids
}

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
	for _, limit := range []int{0, -1, -1000, spi.ReadModelMaxLimit + 1, 1 << 31, math.MaxInt, math.MinInt} {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: limit})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q, limit %d", m, limit), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	for _, limit := range []int{1, spi.ReadModelMaxLimit} {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: limit})
		if err != nil || len(p.Docs) != min(limit, 3) {
			return c.Failf("Query", fmt.Sprintf("%q, limit %d", m, limit), pageOrErr(p, err), fmt.Sprintf("%d documents", min(limit, 3)))
		}
	}
	return nil
}

// firstCursor upserts n documents into a fresh model and returns it with the cursor after its first page of 2.
func firstCursor(ctx context.Context, c *ReadModelStoreCase, tag string, n int) (string, string, error) {
	m := c.ExecID(tag)
	for _, id := range rmIDs(n) {
		if err := rmUpsert(ctx, c, m, id, fmt.Sprintf(`{"id":%q}`, id)); err != nil {
			return "", "", err
		}
	}
	p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2})
	if err != nil || p.NextCursor == "" {
		return "", "", c.Failf("Query", fmt.Sprintf("%q, limit 2) of %d documents (", m, n), pageOrErr(p, err), "a next cursor")
	}
	return m, p.NextCursor, nil
}

func rmCursorForged(ctx context.Context, c *ReadModelStoreCase) error {
	m, cur, err := firstCursor(ctx, c, "forged", 6)
	if err != nil {
		return err
	}
	if p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: cur}); err != nil {
		return c.Failf("Query", fmt.Sprintf("%q, the cursor it issued", m), pageOrErr(p, err), "nil")
	}
	forged := []forgedCursor{}
	for _, f := range []string{"x", "not-a-cursor", "id-0003", "eyJtIjoiYSIsImEiOiJiIn0", strings.Repeat("A", 4096), cur[:len(cur)/2], cur + "x", "\x00"} {
		forged = append(forged, forgedCursor{f, "made up"})
	}
	// The first page of 2 ends at id-0001; id-0002x is an id the model never held, so no cursor
	// the store issued can resume after it.
	forged = append(forged, forgeCursors(cur, "id-0001", "id-0002x")...)
	for _, f := range forged {
		p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: f.cursor})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q, cursor %q) a cursor the store never issued: the cursor it issued, %q, %s (", m, clipS(f.cursor), clipS(cur), f.how), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	return nil
}

func rmCursorForeign(ctx context.Context, c *ReadModelStoreCase) error {
	m, cur, err := firstCursor(ctx, c, "home", 6)
	if err != nil {
		return err
	}
	for _, other := range []string{c.ExecID("other"), m + "x", upper(m)} {
		for _, id := range rmIDs(6) {
			if err := rmUpsert(ctx, c, other, id, `{}`); err != nil {
				return err
			}
		}
		p, err := c.Store.Query(ctx, other, spi.ReadModelQuery{Limit: 2, Cursor: cur})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Query", fmt.Sprintf("%q) with a cursor issued for %q (", other, m), pageOrErr(p, err), "an invalid-argument error")
		}
	}
	return nil
}

func rmCursorStale(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("stale")
	ids := []string{"id-10", "id-20", "id-30", "id-40", "id-50", "id-60"}
	for _, id := range ids {
		if err := rmUpsert(ctx, c, m, id, `{"v":1}`); err != nil {
			return err
		}
	}
	p, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2})
	if err != nil || len(p.Docs) != 2 || p.NextCursor == "" {
		return c.Failf("Query", fmt.Sprintf("%q, limit 2", m), pageOrErr(p, err), "2 documents and a next cursor")
	}
	// Upserts before the cursor's position, at it, and after it, then resume.
	for _, id := range []string{"id-05", "id-15", "id-20", "id-25", "id-70"} {
		if err := rmUpsert(ctx, c, m, id, `{"v":2}`); err != nil {
			return err
		}
	}
	var got []string
	cursor := p.NextCursor
	for cursor != "" {
		q, err := c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 2, Cursor: cursor})
		if err != nil {
			return c.Failf("Query", fmt.Sprintf("%q, a cursor kept across upserts", m), err, "nil")
		}
		for _, d := range q.Docs {
			got = append(got, d.ID)
		}
		cursor = q.NextCursor
	}
	want := []string{"id-25", "id-30", "id-40", "id-50", "id-60", "id-70"}
	return c.Diff("Query", fmt.Sprintf("%q) resumed after id-20 once id-05, id-15, id-20, id-25 and id-70 were upserted (", m), want, got)
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

func rmInvalid(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("inv")
	for _, tc := range []struct{ name, model, id, doc string }{
		{"empty model", "", "x", `{}`}, {"empty id", m, "", `{}`}, {"doc not JSON", m, "x", `{"a":`}, {"empty doc", m, "x", ``},
	} {
		err := c.Store.Upsert(ctx, tc.model, tc.id, json.RawMessage(tc.doc))
		if e := expectErr(c, "Upsert", tc.name, err, spi.ErrInvalidArgument); e != nil {
			return e
		}
	}
	p, err := c.Store.Query(ctx, "", spi.ReadModelQuery{Limit: 1})
	if e := expectErr(c, "Query", "empty model", err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	_ = p
	p, err = c.Store.Query(ctx, m, spi.ReadModelQuery{Limit: 10})
	if err != nil || len(p.Docs) != 0 {
		return c.Failf("Query", fmt.Sprintf("%q) after invalid upserts (", m), pageOrErr(p, err), "no documents")
	}
	return nil
}
