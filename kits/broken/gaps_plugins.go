package broken

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/spi"
)

func gapContentStores() []gap[spi.ContentStore] {
	type C = spi.ContentStore
	owners := []string{"I-PLUGIN-3", "I-PLUGIN-14"}
	return []gap[C]{
		g("owners-fold-case", "owners are keyed lower-cased, so owners differing only by case read each other's content", "contentstore/owners-apart-every-method", owners,
			func() C { return ownersRekeyed{newCS(), strings.ToLower} }),
		g("owners-trimmed", "owners are kept in a fixed-width column that drops trailing spaces, so \"o\" and \"o \" are one owner", "contentstore/owners-apart-every-method", owners,
			func() C { return ownersRekeyed{newCS(), func(s string) string { return strings.TrimRight(s, " ") }} }),
		g("json-content-normalised", "content that parses as JSON is kept in a JSON column and read back re-encoded (keys sorted, spacing and escapes dropped)", "contentstore/json-content-bytes", []string{"I-PLUGIN-1", "I-PLUGIN-12"},
			func() C { return jsonContentNormalised{newCS(), &sync.Mutex{}, map[string][]byte{}} }),
		g("put-race-refused", "put looks the digest up, then inserts; a put racing another of the same bytes hits the unique key and is refused", "contentstore/put-idempotent", []string{"I-PLUGIN-1"},
			func() C { return putRaceRefused{&sync.Mutex{}, map[string][]byte{}} }),
		g("content-written-in-parts", "content is written under its digest in 64 KiB parts, one statement each; readers see it grow", "contentstore/readers-whole-content", []string{"I-PLUGIN-2", "I-PLUGIN-13"},
			func() C { return contentInParts{&sync.Mutex{}, map[string][]byte{}} }),
	}
}

// --- owners pass through key before they name a partition.
type ownersRekeyed struct {
	cs
	key func(string) string
}

func (s ownersRekeyed) PutFor(ctx context.Context, a spi.ContentAccess, data []byte) (spi.ContentRef, error) {
	return s.cs.PutFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, data)
}

func (s ownersRekeyed) GetFor(ctx context.Context, a spi.ContentAccess, digest string) ([]byte, error) {
	return s.cs.GetFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, digest)
}

func (s ownersRekeyed) PutStreamFor(ctx context.Context, a spi.ContentAccess, r io.Reader) (spi.ContentRef, error) {
	return s.cs.PutStreamFor(ctx, spi.ContentAccess{Owner: s.key(a.Owner)}, r)
}

// --- JSON content is stored re-encoded under the digest of the bytes put.
type jsonContentNormalised struct {
	cs
	mu   *sync.Mutex
	json map[string][]byte
}

func (s jsonContentNormalised) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref, err := s.cs.Put(ctx, data)
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err == nil && json.Valid(data) && d.Decode(&v) == nil {
		enc, _ := json.Marshal(v)
		s.mu.Lock()
		s.json[ref.Digest] = enc
		s.mu.Unlock()
	}
	return ref, err
}

func (s jsonContentNormalised) Get(ctx context.Context, digest string) ([]byte, error) {
	s.mu.Lock()
	enc, ok := s.json[digest]
	s.mu.Unlock()
	if ok {
		return bytes.Clone(enc), nil
	}
	return s.cs.Get(ctx, digest)
}

func (s jsonContentNormalised) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}

// --- content grows under its digest part by part.
type contentInParts struct {
	mu      *sync.Mutex
	content map[string][]byte
}

func (s contentInParts) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	s.mu.Lock()
	if _, ok := s.content[ref.Digest]; ok {
		s.mu.Unlock()
		return ref, nil
	}
	s.content[ref.Digest] = []byte{}
	s.mu.Unlock()
	const part = 64 << 10
	for off := 0; off < len(data); off += part {
		yield()
		s.mu.Lock()
		s.content[ref.Digest] = append(s.content[ref.Digest], data[off:min(off+part, len(data))]...)
		s.mu.Unlock()
	}
	return ref, nil
}

func (s contentInParts) Get(ctx context.Context, digest string) ([]byte, error) {
	if err := spi.ValidateDigest("get", digest); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.content[digest]
	if !ok {
		return nil, spi.ErrNotFound
	}
	return bytes.Clone(b), nil
}

func (s contentInParts) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}

// --- put is a lookup, then an insert under a unique key: sequential re-puts find the content,
// racing ones collide.
type putRaceRefused struct {
	mu      *sync.Mutex
	content map[string][]byte
}

func (s putRaceRefused) Put(ctx context.Context, data []byte) (spi.ContentRef, error) {
	ref := spi.RefOf(data)
	s.mu.Lock()
	_, ok := s.content[ref.Digest]
	s.mu.Unlock()
	if ok {
		return ref, nil
	}
	yield()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.content[ref.Digest]; ok {
		return spi.ContentRef{}, spi.ErrAlreadyExists
	}
	s.content[ref.Digest] = bytes.Clone(data)
	return ref, nil
}

// Get reads the table as contentInParts does (the two share its layout).
func (s putRaceRefused) Get(ctx context.Context, digest string) ([]byte, error) {
	return contentInParts(s).Get(ctx, digest)
}

func (s putRaceRefused) PutStream(ctx context.Context, r io.Reader) (spi.ContentRef, error) {
	return putRead(ctx, r, s.Put)
}

func gapDurableStateStores() []gap[spi.DurableStateStore] {
	type D = spi.DurableStateStore
	keys := []string{"I-PLUGIN-14", "I-PLUGIN-7"}
	return []gap[D]{
		g("delete-folds-case", "delete matches keys case-insensitively, deleting every key that differs only by case", "durablestatestore/keys-apart-every-method", keys,
			func() D { return deleteFoldsCaseDS{newDS(), &keyIndex{keys: map[string]bool{}}} }),
		g("create-check-folds-case", "a create-only set looks for a present key case-insensitively, so a key differing only by case blocks it", "durablestatestore/keys-apart-every-method", append(keys, "I-PLUGIN-5"),
			func() D { return createCheckFoldsCase{newDS(), &keyIndex{keys: map[string]bool{}}} }),
		g("set-skips-float-equal", "a set whose value equals the stored one through float64 is skipped as unchanged and returns the old version", "durablestatestore/set-never-skipped", []string{"I-PLUGIN-15", "I-PLUGIN-6"},
			func() D { return setSkipsFloatEqual{newDS()} }),
		g("set-merges-objects", "a set of an object merges its keys into the stored object (jsonb ||)", "durablestatestore/set-replaces-whole", []string{"I-PLUGIN-15", "I-PLUGIN-7"},
			func() D { return setMergesObjects{newDS(), &sync.Mutex{}} }),
		g("set-value-then-version", "a set writes the value, then the version, in two statements; readers see a value with the version of the set before", "durablestatestore/readers-whole-set", []string{"I-PLUGIN-13", "I-PLUGIN-6"},
			func() D { return newTornState(false) }),
		g("set-delete-then-insert", "a set deletes the key, then inserts the new value, without a transaction; readers find the key missing", "durablestatestore/readers-whole-set", []string{"I-PLUGIN-13"},
			func() D { return newTornState(true) }),
	}
}

// keyIndex remembers the keys a store holds, for broken stores that look keys up by a collation.
type keyIndex struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (x *keyIndex) set(k string, present bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if present {
		x.keys[k] = true
	} else {
		delete(x.keys, k)
	}
}

// folded returns the held keys equal to k under case folding.
func (x *keyIndex) folded(k string) []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []string
	for h := range x.keys {
		if strings.EqualFold(h, k) {
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

// --- delete removes every key equal to the one named under case folding.
type deleteFoldsCaseDS struct {
	ds
	idx *keyIndex
}

func (s deleteFoldsCaseDS) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	n, err := s.ds.Set(ctx, key, v, pre)
	if err == nil {
		s.idx.set(key, true)
	}
	return n, err
}

func (s deleteFoldsCaseDS) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := s.ds.Delete(ctx, key, pre); err != nil {
		return err
	}
	for _, k := range append(s.idx.folded(key), key) {
		_ = s.ds.Delete(ctx, k, spi.Precondition{})
		s.idx.set(k, false)
	}
	return nil
}

// --- a create-only set is refused when any key equal under case folding is present.
type createCheckFoldsCase struct {
	ds
	idx *keyIndex
}

func (s createCheckFoldsCase) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if pre.IfVersion != nil && *pre.IfVersion == 0 {
		if held := s.idx.folded(key); len(held) > 0 {
			cur, _ := s.ds.Get(ctx, held[0])
			return 0, spi.StateConflict(key, pre, cur.Version)
		}
	}
	n, err := s.ds.Set(ctx, key, v, pre)
	if err == nil {
		s.idx.set(key, true)
	}
	return n, err
}

func (s createCheckFoldsCase) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	err := s.ds.Delete(ctx, key, pre)
	if err == nil {
		s.idx.set(key, false)
	}
	return err
}

// sameThroughFloat reports whether a and b decode to equal values through float64.
func sameThroughFloat(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// --- an unconditional set of a value equal to the stored one through float64 writes nothing.
type setSkipsFloatEqual struct{ ds }

func (s setSkipsFloatEqual) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if cur, err := s.ds.Get(ctx, key); err == nil && pre.Holds(cur.Version) && sameThroughFloat(cur.Value, v) {
		return cur.Version, nil
	}
	return s.ds.Set(ctx, key, v, pre)
}

// --- an object set on a stored object is merged into it, top-level keys of the new one winning.
type setMergesObjects struct {
	ds
	mu *sync.Mutex
}

func (s setMergesObjects) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, err := s.ds.Get(ctx, key); err == nil {
		v = mergeObjects(cur.Value, v)
	}
	return s.ds.Set(ctx, key, v, pre)
}

// mergeObjects returns old || next as PostgreSQL's jsonb does: when both are objects, old's keys
// with next's added or replacing them; otherwise next.
func mergeObjects(old, next json.RawMessage) json.RawMessage {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(next, &b) != nil || a == nil || b == nil {
		return next
	}
	for k, v := range b {
		a[k] = v
	}
	out, _ := json.Marshal(a)
	return out
}

// tornState keeps each key's value and version in two places, written one after the other.
type tornState struct {
	mu       *sync.Mutex
	values   map[string]json.RawMessage
	versions map[string]int64
	next     *atomic.Int64
	// deleteFirst makes a set remove the key first, then write value and version together.
	deleteFirst bool
}

func newTornState(deleteFirst bool) tornState {
	return tornState{&sync.Mutex{}, map[string]json.RawMessage{}, map[string]int64{}, &atomic.Int64{}, deleteFirst}
}

func (s tornState) Get(ctx context.Context, key string) (spi.StateEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[key]
	if !ok {
		return spi.StateEntry{}, spi.ErrNotFound
	}
	return spi.StateEntry{Key: key, Value: bytes.Clone(v), Version: s.versions[key]}, nil
}

func (s tornState) Set(ctx context.Context, key string, v json.RawMessage, pre spi.Precondition) (int64, error) {
	if err := spi.ValidateStateWrite("set", key, v, pre, true); err != nil {
		return 0, err
	}
	s.mu.Lock()
	cur := s.versions[key]
	if _, ok := s.values[key]; !ok {
		cur = 0
	}
	if !pre.Holds(cur) {
		s.mu.Unlock()
		return 0, spi.StateConflict(key, pre, cur)
	}
	n := s.next.Add(1)
	if s.deleteFirst {
		delete(s.values, key)
		s.mu.Unlock()
		yield()
		s.mu.Lock()
		s.values[key], s.versions[key] = bytes.Clone(v), n
		s.mu.Unlock()
		return n, nil
	}
	s.values[key] = bytes.Clone(v)
	s.mu.Unlock()
	yield()
	s.mu.Lock()
	s.versions[key] = n
	s.mu.Unlock()
	return n, nil
}

func (s tornState) Delete(ctx context.Context, key string, pre spi.Precondition) error {
	if err := spi.ValidateStateWrite("delete", key, nil, pre, false); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.versions[key]
	if _, ok := s.values[key]; !ok {
		cur = 0
	}
	if !pre.Holds(cur) {
		return spi.StateConflict(key, pre, cur)
	}
	delete(s.values, key)
	return nil
}

func gapReadModelStores() []gap[spi.ReadModelStore] {
	type R = spi.ReadModelStore
	return []gap[R]{
		g("ids-collated", "query orders ids case-insensitively (a before B) and pages in that order", "readmodelstore/query-byte-order", []string{"I-PLUGIN-10", "I-PLUGIN-14", "I-STORE-28"},
			func() R { return idsCollated{newTable()} }),
		g("ids-trimmed", "ids are kept in a fixed-width column that drops trailing spaces, so \"x\" and \"x \" are one document", "readmodelstore/ids-apart-every-method", []string{"I-PLUGIN-14", "I-PLUGIN-10"},
			func() R { return idsTrimmed{newRM()} }),
		g("models-normalised", "model names are NFC-normalised, so models differing only in normal form share documents and cursors", "readmodelstore/ids-apart-every-method", []string{"I-PLUGIN-14", "I-PLUGIN-10", "I-PLUGIN-9"},
			func() R { return modelsNormalised{newRM()} }),
		g("upsert-merges-objects", "an upsert of an object merges its keys into the stored object (jsonb ||)", "readmodelstore/upsert-replaces-whole", []string{"I-PLUGIN-15", "I-PLUGIN-10"},
			func() R { return upsertMerges{newTable()} }),
		g("upsert-skips-float-equal", "an upsert whose document equals the stored one through float64 is skipped as unchanged", "readmodelstore/upsert-replaces-whole", []string{"I-PLUGIN-15", "I-PLUGIN-7"},
			func() R { return upsertSkipsFloatEqual{newTable()} }),
		g("upsert-delete-then-insert", "an upsert deletes the document, then inserts the new one, without a transaction; readers miss it", "readmodelstore/readers-whole-upsert", []string{"I-PLUGIN-13", "I-PLUGIN-10"},
			func() R { return upsertDeleteThenInsert{newTable()} }),
	}
}

// --- ids ordered by a case-insensitive collation, ties broken by bytes.
type idsCollated struct{ rmTable }

func (s idsCollated) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	after, err := spi.ValidateQuery(model, q)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	all := s.sorted(model)
	sort.SliceStable(all, func(i, j int) bool { return collate(all[i].ID, all[j].ID) })
	page := spi.ReadModelPage{Docs: []spi.ReadModelDoc{}}
	for _, d := range all {
		if after != "" && !collate(after, d.ID) {
			continue
		}
		if len(page.Docs) == q.Limit {
			page.NextCursor = spi.EncodeCursor(model, page.Docs[len(page.Docs)-1].ID)
			break
		}
		page.Docs = append(page.Docs, d)
	}
	return page, nil
}

// --- trailing spaces of ids are dropped.
type idsTrimmed struct{ rm }

func (s idsTrimmed) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if t := strings.TrimRight(id, " "); t != "" {
		id = t
	}
	return s.rm.Upsert(ctx, model, id, doc)
}

// --- model names are normalised (the one decomposed form the kit uses is composed).
type modelsNormalised struct{ rm }

func nfc(s string) string { return strings.ReplaceAll(s, "e\u0301", "\u00e9") }

func (s modelsNormalised) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	return s.rm.Upsert(ctx, nfc(model), id, doc)
}

func (s modelsNormalised) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	return s.rm.Query(ctx, nfc(model), q)
}

// --- an object upserted on a stored object is merged into it.
type upsertMerges struct{ rmTable }

func (s upsertMerges) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	s.mu.Lock()
	old, ok := s.models[model][id]
	s.mu.Unlock()
	if ok {
		doc = mergeObjects(old, doc)
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}

// --- an upsert equal to the stored document through float64 writes nothing.
type upsertSkipsFloatEqual struct{ rmTable }

func (s upsertSkipsFloatEqual) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	s.mu.Lock()
	old, ok := s.models[model][id]
	s.mu.Unlock()
	if ok && sameThroughFloat(old, doc) {
		return nil
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}

// --- an upsert of a stored id deletes it first, then inserts.
type upsertDeleteThenInsert struct{ rmTable }

func (s upsertDeleteThenInsert) Upsert(ctx context.Context, model, id string, doc json.RawMessage) error {
	if err := spi.ValidateUpsert(model, id, doc); err != nil {
		return err
	}
	s.mu.Lock()
	_, ok := s.models[model][id]
	delete(s.models[model], id)
	s.mu.Unlock()
	if ok {
		yield()
	}
	return s.rmTable.Upsert(ctx, model, id, doc)
}

// GapContentStores are the broken ContentStores of the cross-seam rule classes.
func GapContentStores() []Store[spi.ContentStore] { return stores(gapContentStores()) }

// GapDurableStateStores are the broken DurableStateStores of the cross-seam rule classes.
func GapDurableStateStores() []Store[spi.DurableStateStore] { return stores(gapDurableStateStores()) }

// GapReadModelStores are the broken ReadModelStores of the cross-seam rule classes.
func GapReadModelStores() []Store[spi.ReadModelStore] { return stores(gapReadModelStores()) }

// putRead is PutStream for a broken store whose Put holds the fault: it reads the whole stream,
// then puts it.
func putRead(ctx context.Context, r io.Reader, put func(context.Context, []byte) (spi.ContentRef, error)) (spi.ContentRef, error) {
	data, err := spi.ReadContent(ctx, r)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return put(ctx, data)
}
