package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

func rmUpsertQuery(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("orders")
	// Ids every order of strings sorts alike: which order decides for the others is I-STORE-28's.
	docs := map[string]string{"b": `{"total":2,"items":["x","y"]}`, "a": `{"total":1,"note":"é ✓"}`, "c": `[1,2,3]`, "a/1": `"scalar"`, "0": `null`}
	for _, id := range []string{"b", "a", "c", "a/1", "0"} {
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
	want := docsCmpWant([]string{"0", "a", "a/1", "b", "c"}, func(id string) string { return docs[id] })
	if err := c.Diff("Query", fmt.Sprintf("%q, limit 100", m), want, nonNilDocs(got), envCmp); err != nil {
		return err
	}
	p, err := c.Store.Query(ctx, c.ExecID("empty"), spi.ReadModelQuery{Limit: 10})
	if err != nil || len(p.Docs) != 0 || p.NextCursor != "" {
		return c.Failf("Query", "a model never written, limit 10", pageOrErr(p, err), "no documents and no next cursor")
	}
	return nil
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
	if err := c.Diff("Query", fmt.Sprintf("%q) after (an upsert with numbers a double cannot hold", m), docsCmpWant([]string{"x"}, func(string) string { return doc }), nonNilDocs(got), envCmp); err != nil {
		return err
	}
	// A document differing from the stored one only where a double cannot tell is a new document.
	for _, d := range []string{bigValue, bigValueNext} {
		if err := rmUpsert(ctx, c, m, "x", d); err != nil {
			return err
		}
	}
	if got, err = rmAll(ctx, c, m, 10); err != nil {
		return err
	}
	return c.Diff("Query", fmt.Sprintf("%q) after (an upsert differing from the stored document only in a number beyond 2^64", m), docsCmpWant([]string{"x"}, func(string) string { return bigValueNext }), nonNilDocs(got), envCmp)
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

func rmUpsertReplacesWhole(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("whole")
	for _, w := range []struct{ how, doc string }{
		{"a first document", `{"a":1,"b":{"x":1,"y":2},"c":[1,2],"flag":true}`},
		{"an object lacking keys of the stored one", `{"b":{"x":3},"d":null}`},
		{"an empty object", `{}`},
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

// rmRoundtripValues: every value of the round-trip corpus upserted as a document reads back as
// the same JSON value (I-PLUGIN-7, I-PLUGIN-10).
func rmRoundtripValues(ctx context.Context, c *ReadModelStoreCase) error {
	m := c.ExecID("values")
	doc := map[string]string{}
	var ids []string
	for i, hv := range hardValues() {
		for j, value := range []string{hv.payload, hv.metadata} {
			if value == "" {
				continue
			}
			id := fmt.Sprintf("v%02d-%d", i, j)
			if err := rmUpsert(ctx, c, m, id, value); err != nil {
				return err
			}
			doc[id] = value
			ids = append(ids, id)
		}
	}
	got, err := rmAll(ctx, c, m, 1000)
	if err != nil {
		return err
	}
	return c.Diff("Query", fmt.Sprintf("%q) after (upserts of the round-trip corpus", m), docsCmpWant(ids, func(id string) string { return doc[id] }), nonNilDocs(got), envCmp)
}
