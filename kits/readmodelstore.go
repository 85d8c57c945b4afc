package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// ReadModelStoreCase is what a ReadModelStore check runs against.
type ReadModelStoreCase = Case[spi.ReadModelStore]

// ReadModelStoreKit is the ReadModelStore conformance kit (spec §7, plugin tier).
func ReadModelStoreKit() Kit[spi.ReadModelStore] {
	type C = Check[spi.ReadModelStore]
	return Kit[spi.ReadModelStore]{Name: "readmodelstore", Seam: manifest.SeamReadModelStore, Checks: []C{
		{ID: "readmodelstore/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *ReadModelStoreCase) error {
				return versionClaim(c, manifest.SeamReadModelStore)
			}},
		{ID: "readmodelstore/upsert-query", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-10", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "upserted documents read back by JSON value, ascending by id; a second upsert replaces", Run: rmUpsertQuery},
		{ID: "readmodelstore/roundtrip-values", Clauses: []string{"I-PLUGIN-7", "I-PLUGIN-10"}, Level: spec.Must,
			Doc: "every value of the round-trip corpus upserted as a document reads back as the same JSON value", Run: rmRoundtripValues},
		{ID: "readmodelstore/roundtrip-precision", Clauses: []string{"I-STORE-25"}, Level: spec.Must,
			Doc: "numbers a double cannot hold read back exactly, also after an upsert of a document differing from the stored one only in such a number", Run: rmPrecision},
		{ID: "readmodelstore/model-isolation", Clauses: []string{"I-PLUGIN-10", "I-STORE-4"}, Level: spec.Must,
			Doc: "models whose names extend one another or differ by case hold their own documents", Run: rmIsolation},
		{ID: "readmodelstore/pagination", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-9"}, Level: spec.Must,
			Doc: "pages of every limit tile the model exactly: at most limit each, full until the last, nextCursor empty only after the last", Run: rmPagination},
		{ID: "readmodelstore/limit-invalid", Clauses: []string{"S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-19"}, Level: spec.Must,
			Doc: "limits 0 and negative are invalid arguments; 1 is served, and so is 1000 (a smaller maximum refused above it is recommended against, I-PLUGIN-19)", Run: rmLimitInvalid},
		{ID: "readmodelstore/limit-max", Clauses: []string{"I-PLUGIN-19"}, Level: spec.Must,
			Doc: "limits above 1000, huge ones included, are invalid arguments, never clamped; our choice, so recommended", Run: rmLimitMax},
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
		{ID: "readmodelstore/ids-apart-every-method", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-PLUGIN-9", "I-STORE-4", "I-STORE-80"}, Level: spec.Must,
			Doc: "upsert, query and cursors keep ids, and models, apart that differ only by case, trailing space or normal form, or extend one another (also after : / . | _ - blank %), or differ by one delimiter swapped for another or for its escape, or are 1 024 bytes long and differ only in their last byte; a cursor of either model of a pair is refused by the other", Run: rmIDsEveryMethod},
		{ID: "readmodelstore/names-with-delimiters", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-STORE-4"}, Level: spec.Must,
			Doc: "a model and an id that hold a delimiter stores join names with (: / . |) stay themselves: (m, \"a:x\") and (\"m:a\", \"x\") are two documents of two models, and querying m lists none of m:a's, on one page and paged at limit 1", Run: rmNamesWithDelimiters},
		{ID: "readmodelstore/query-byte-order", Clauses: []string{"I-STORE-28"}, Level: spec.Must,
			Doc: "query lists ids that differ only by case, trailing space or normal form in byte order (upper case before lower case; U+E000–U+FFFF before characters beyond U+FFFF, unlike UTF-16 order), on one page and paged at limits 1 and 3; our choice, so recommended", Run: rmQueryByteOrder},
		{ID: "readmodelstore/query-ids-apart", Clauses: []string{"I-PLUGIN-14", "I-PLUGIN-10"}, Level: spec.Must,
			Doc: "query lists ids that differ only by case, trailing space or normal form once each, in whatever order the store sorts them, on one page and paged at limits 1 and 3", Run: rmQueryIDsApart},
		{ID: "readmodelstore/upsert-replaces-whole", Clauses: []string{"I-PLUGIN-15", "I-PLUGIN-10", "I-PLUGIN-7"}, Level: spec.Must,
			Doc: "an upsert replaces the whole document: keys the new object lacks are gone and nested objects are not merged", Run: rmUpsertReplacesWhole},
		{ID: "readmodelstore/explore", Clauses: rmExplore().clauses(), Level: spec.Must,
			Doc: "seeded scripts of upserts and re-upserts (of documents whose keys change, of a double's twin) and queries paged to their end at limits 1 to 3, over models and document ids that differ by one delimiter, a case, a normal form, a prefix or a long tail (1 024 bytes and past it), with documents from the round-trip corpus (U+0000 aside), answer as the in-memory reference does: the same documents in the same pages; about one step in five is two made at once on one id, each by its own client, answered as the reference answers them in one order or the other (the first difference is shrunk to a minimal script)", Run: rmExplore().run},
		{ID: "readmodelstore/readers-whole-upsert", Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-10"}, Level: spec.Must,
			Doc: "readers querying while documents are upserted again always list every id present throughout, each document no older than one they saw (sees a replace visible half-done for at least one read; two readers read before, during and after each write of a fixed number of rounds)", Run: rmReadersWholeUpsert},
	}}
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

// rmAllPaced is rmAll calling between (when set) before every page after the first. A first page
// refused as an invalid argument is asked again at half the limit: a store may serve a smaller
// maximum than 1000 and refuse above it (I-PLUGIN-19's option), which readmodelstore/limit-invalid
// reports as a recommendation; every other check pages within the store's maximum.
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
		if pages == 0 && limit > 1 && errors.Is(err, spi.ErrInvalidArgument) {
			limit, pages = limit/2, -1 // above the store's maximum: page with a smaller limit
			continue
		}
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

func pageOrErr(p spi.ReadModelPage, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("%d documents, next cursor %q", len(p.Docs), clipS(p.NextCursor))
}

func rmIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("id-%04d", i)
	}
	return ids
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
