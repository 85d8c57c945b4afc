package broken

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

type cs struct{ *memory.ContentStore }

func newCS() cs { return cs{memory.NewContentStore()} }

// ContentStores are broken ContentStores, each with the check that must reject it.
func ContentStores() []Store[spi.ContentStore] {
	return []Store[spi.ContentStore]{
		{"partial-stream-visible", "a stream whose source fails leaves the bytes read so far visible under their digest", "contentstore/put-stream-failure", func() spi.ContentStore { return partialStreamVisible{newCS()} }},
		{"stream-swallows-error", "a source error is taken for the end of the stream and the prefix is committed with a ref", "contentstore/put-stream-failure", func() spi.ContentStore { return streamSwallowsError{newCS()} }},
		{"commits-after-cancel", "a cancelled stream reports the cancellation, then commits the content anyway (two outcomes)", "contentstore/put-stream-cancel", func() spi.ContentStore { return commitsAfterCancel{newCS()} }},
		{"wrong-digest", "refs name the content by md5, not sha256", "contentstore/put-get", func() spi.ContentStore { return wrongDigest{newCS()} }},
		{"truncates-large", "content above 64 KiB is cut to 64 KiB", "contentstore/put-get", func() spi.ContentStore {
			return truncatesLarge{truncStore{newCS(), &sync.Mutex{}, map[string][]byte{}}}
		}},
		{"empty-for-unknown", "get of a digest never put returns no bytes and no error", "contentstore/get-unknown", func() spi.ContentStore { return emptyForUnknown{newCS()} }},
		{"malformed-digest-not-found", "a malformed digest is looked up and not found instead of refused", "contentstore/get-malformed-digest", func() spi.ContentStore { return malformedNotFound{newCS()} }},
		{"put-twice-refused", "putting stored bytes again is refused as already existing", "contentstore/put-idempotent", func() spi.ContentStore { return putTwiceRefused{newCS()} }},
		{"owner-leak", "content of any owner is readable through every access", "contentstore/owner-isolation", func() spi.ContentStore {
			return ownerLeakAll{newCS(), &sync.Mutex{}, map[string]bool{}}
		}},
		{"owner-unowned-fallback", "an owner's get falls back to content put without an owner, and the unowned read everyone's", "contentstore/owner-isolation", func() spi.ContentStore { return ownerLeak{newCS()} }},
		{"owner-prefix", "owners are matched by prefix, so one owner reads the content of an owner extending its name", "contentstore/owner-isolation", func() spi.ContentStore { return ownerPrefix{newCS()} }},
		{"seals-flaps", "sealsContent answers differently from call to call", "contentstore/seals-content", func() spi.ContentStore { n := 0; return sealsFlaps{newCS(), &sync.Mutex{}, &n} }},
		{"seals-without-owner", "sealsContent says true but the store takes no owner argument", "contentstore/seals-content", func() spi.ContentStore {
			return sealsWithoutOwner{plainContent{memory.NewContentStore()}}
		}},
	}
}

func classContentStores() []classStore[spi.ContentStore] {
	type C = spi.ContentStore
	owners := []string{"I-PLUGIN-3", "I-PLUGIN-14"}
	return []classStore[C]{
		class("owners-fold-case", "owners are keyed lower-cased, so owners differing only by case read each other's content", "contentstore/owners-apart-every-method", owners,
			func() C { return ownersRekeyed{newCS(), strings.ToLower} }),
		class("owners-trimmed", "owners are kept in a fixed-width column that drops trailing spaces, so \"o\" and \"o \" are one owner", "contentstore/owners-apart-every-method", owners,
			func() C { return ownersRekeyed{newCS(), func(s string) string { return strings.TrimRight(s, " ") }} }),
		class("stream-owner-folds-case", "putStreamFor keys its owner lower-cased while putFor and getFor do not, so a stream put for \"O\" is read by \"o\"", "contentstore/owners-apart-every-method", owners,
			func() C { return streamOwnerFolded{newCS()} }),
		class("owner-stream-keeps-partial", "putStreamFor, unlike putStream, keeps the part of the stream read before its source failed, under the owner", "contentstore/put-stream-failure", []string{"I-PLUGIN-2"},
			func() C { return ownerStreamKeepsPartial{newCS()} }),
		class("json-content-normalised", "content that parses as JSON is kept in a JSON column and read back re-encoded (keys sorted, spacing and escapes dropped)", "contentstore/json-content-bytes", []string{"I-PLUGIN-1", "I-PLUGIN-12"},
			func() C { return jsonContentNormalised{newCS(), &sync.Mutex{}, map[string][]byte{}} }),
		class("put-race-refused", "put looks the digest up, then inserts; a put racing another of the same bytes hits the unique key and is refused", "contentstore/put-idempotent", []string{"I-PLUGIN-1"},
			func() C { return putRaceRefused{newContentTable(), paceHeld} }),
		class("owner-before-digest", "getFor looks the owner's content up before it validates the digest, so a malformed digest asked for through an owner's access is not found (breaks only a recommendation)", "contentstore/refusal-order", []string{"I-STORE-56"},
			func() C { return ownerBeforeDigest{newCS()} }),
		class("content-written-in-parts", "content is written under its digest in 64 KiB parts, one statement each; readers see it grow (each part stays visible until a reader has looked)", "contentstore/readers-whole-content", []string{"I-PLUGIN-2", "I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), newWindow(), false} }),
		class("content-rewritten-in-parts", "a put of content already stored truncates it and writes it again in 64 KiB parts; readers that had it whole see it torn", "contentstore/readers-whole-content", []string{"I-PLUGIN-13"},
			func() C { return contentInParts{newContentTable(), newWindow(), true} }),
	}
}

// contentTable is a digest-keyed table of content, the layout the broken content stores below share.
type contentTable struct {
	mu      *sync.Mutex
	content map[string][]byte
}

func newContentTable() contentTable { return contentTable{&sync.Mutex{}, map[string][]byte{}} }

func (s contentTable) Get(ctx context.Context, digest string) ([]byte, error) {
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

// ClassContentStores are the broken ContentStores of the rule classes that apply across seams and methods.
func ClassContentStores() []Store[spi.ContentStore] { return stores(classContentStores()) }

// putRead is PutStream for a broken store whose Put holds the fault: it reads the whole stream,
// then puts it.
func putRead(ctx context.Context, r io.Reader, put func(context.Context, []byte) (spi.ContentRef, error)) (spi.ContentRef, error) {
	data, err := spi.ReadContent(ctx, r)
	if err != nil {
		return spi.ContentRef{}, err
	}
	return put(ctx, data)
}
