package kits

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

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
