package broken

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func classReadModelStores() []classStore[spi.ReadModelStore] {
	type R = spi.ReadModelStore
	return []classStore[R]{
		class("ids-collated", "query orders ids case-insensitively (a before B) and pages in that order", "readmodelstore/query-byte-order", []string{"I-STORE-28"},
			func() R { return idsCollated{newTable(), collate} }),
		class("ids-trimmed", "ids are kept in a fixed-width column that drops trailing spaces, so \"x\" and \"x \" are one document", "readmodelstore/ids-apart-every-method", []string{"I-PLUGIN-14", "I-PLUGIN-10"},
			func() R { return idsTrimmed{newRM()} }),
		class("models-normalised", "model names are NFC-normalised, so models differing only in normal form share documents and cursors", "readmodelstore/ids-apart-every-method", []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-PLUGIN-9"},
			func() R { return modelsNormalised{newRM()} }),
		class("model-id-joined", "documents are keyed <model>:<id> in one table, so (m, \"a:x\") and (\"m:a\", \"x\") are one row and a query of m lists m:a's documents", "readmodelstore/names-with-delimiters", []string{"I-PLUGIN-14", "I-PLUGIN-10"},
			func() R { return newModelIDJoined() }),
		class("ids-utf16-order", "query orders ids by UTF-16 code units (characters beyond U+FFFF before U+E000–U+FFFF) and pages in that order", "readmodelstore/query-byte-order", []string{"I-STORE-28"},
			func() R { return idsCollated{newTable(), utf16Less} }),
		class("cursor-model-folds-case", "a cursor is accepted for any model equal to its own under case folding (only the cursor check folds case)", "readmodelstore/ids-apart-every-method", []string{"I-PLUGIN-14", "I-PLUGIN-9"},
			func() R { return cursorModelFolded{newTable()} }),
		class("upsert-merges-objects", "an upsert of an object merges its keys into the stored object (jsonb ||)", "readmodelstore/upsert-replaces-whole", []string{"I-PLUGIN-15", "I-PLUGIN-10"},
			func() R { return upsertMerges{newTable()} }),
		class("upsert-skips-float-equal", "an upsert whose document equals the stored one through float64 is skipped as unchanged, so a document differing only in a number a double cannot hold is lost", "readmodelstore/roundtrip-precision", []string{"I-STORE-25"},
			func() R { return upsertSkipsFloatEqual{newTable()} }),
		class("documents-reencoded", "documents are re-encoded through another JSON library on upsert: empty arrays become objects, numbers are printed with 14 digits", "readmodelstore/roundtrip-values", []string{"I-PLUGIN-7"},
			func() R { return documentsReencoded{newRM()} }),
		class("upsert-delete-then-insert", "an upsert deletes the document, then inserts the new one, without a transaction; readers miss it", "readmodelstore/readers-whole-upsert", []string{"I-PLUGIN-13", "I-PLUGIN-10"},
			func() R { return upsertDeleteThenInsert{newTable(), newWindow()} }),
	}
}

// ClassReadModelStores are the broken ReadModelStores of the rule classes that apply across seams and methods.
func ClassReadModelStores() []Store[spi.ReadModelStore] { return stores(classReadModelStores()) }

type rm struct{ *memory.ReadModelStore }

func newRM() rm { return rm{memory.NewReadModelStore()} }

// rmTable is a read model kept as plain maps, for broken stores whose paging differs from the
// reference's.
type rmTable struct {
	mu     *sync.Mutex
	models map[string]map[string]json.RawMessage
}

func newTable() rmTable {
	return rmTable{&sync.Mutex{}, map[string]map[string]json.RawMessage{}}
}

func (t rmTable) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.models[model] == nil {
		t.models[model] = map[string]json.RawMessage{}
	}
	t.models[model][id] = append(json.RawMessage(nil), doc...)
	return nil
}

// sorted returns the model's documents ascending by id.
func (t rmTable) sorted(model string) []spi.ReadModelDoc {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []spi.ReadModelDoc{}
	for id, d := range t.models[model] {
		out = append(out, spi.ReadModelDoc{ID: id, Doc: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Query pages the table as the reference does (keyset, exclusive, signed cursors), for broken
// stores whose defect is elsewhere.
func (t rmTable) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	docs, more := t.keyset(model, after, q.Limit, false)
	page := spi.ReadModelPage{Docs: append([]spi.ReadModelDoc{}, docs...)}
	if more {
		page.NextCursor = spi.EncodeCursor(model, docs[len(docs)-1].ID)
	}
	return page, nil
}

// keysetQuery pages with cursor after (exclusive unless inclusive), limit as given (0 = all).
func (t rmTable) keyset(model, after string, limit int, inclusive bool) ([]spi.ReadModelDoc, bool) {
	var out []spi.ReadModelDoc
	for _, d := range t.sorted(model) {
		if d.ID > after || (inclusive && d.ID == after) {
			out = append(out, d)
		}
	}
	if limit > 0 && len(out) > limit {
		return out[:limit], true
	}
	return out, false
}

// ReadModelStores are broken ReadModelStores, each with the check that must reject it.
func ReadModelStores() []Store[spi.ReadModelStore] {
	return []Store[spi.ReadModelStore]{
		{"offset-cursor", "cursors are offsets, so upserts before the position make a kept cursor skip and repeat", "readmodelstore/cursor-stale-resumes", func() spi.ReadModelStore { return offsetReadCursor{newTable()} }},
		{"forged-cursor-accepted", "cursors are the plain base64 of the last id, so an altered cursor reads from wherever it points", "readmodelstore/cursor-forged", func() spi.ReadModelStore { return plainCursor{newTable()} }},
		{"unsigned-cursor", "cursors are unsigned base64 of the model and the last id: the model is checked, but a client can point one at any id", "readmodelstore/cursor-forged", func() spi.ReadModelStore { return unsignedCursor{newTable()} }},
		{"foreign-cursor-accepted", "cursors are not bound to their model", "readmodelstore/cursor-foreign", func() spi.ReadModelStore { return unboundCursor{newTable()} }},
		{"inclusive-cursor", "a page starts at its cursor's id, repeating the last document of the page before", "readmodelstore/pagination", func() spi.ReadModelStore { return inclusiveCursor{newTable()} }},
		{"limit-ignored", "the limit is ignored and a page holds everything after the cursor", "readmodelstore/pagination", func() spi.ReadModelStore { return limitIgnored{newTable()} }},
		{"limit-clamped", "a zero or negative limit takes a default page and a huge one is clamped", "readmodelstore/limit-invalid", func() spi.ReadModelStore { return limitClamped{newRM()} }},
		{"limit-above-max-accepted", "limits between 1001 and 2^31 are served as 1000", "readmodelstore/limit-max", func() spi.ReadModelStore { return hugeLimitAccepted{newTable()} }},
		{"limit-max-100", "the largest limit served is 100; a larger one is an invalid argument (breaks only a recommendation: that is limit validation too)", "readmodelstore/limit-invalid", func() spi.ReadModelStore { return smallMaxLimit{newTable()} }},
		{"no-next-cursor", "full pages carry no next cursor, so a listing ends after its first page", "readmodelstore/pagination", func() spi.ReadModelStore { return noNextCursor{newRM()} }},
		{"cursor-past-end", "every non-empty page carries a next cursor, also the last", "readmodelstore/pagination", func() spi.ReadModelStore { return cursorPastEnd{newTable()} }},
		{"model-prefix", "a query lists the documents of every model whose name begins with the one asked for", "readmodelstore/model-isolation", func() spi.ReadModelStore { return modelPrefix{newTable()} }},
		{"lossy-numbers", "documents pass through float64", "readmodelstore/roundtrip-precision", func() spi.ReadModelStore { return lossyDocs{newRM()} }},
	}
}
