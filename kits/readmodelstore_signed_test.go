package kits_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// signedCursorStore is a correct ReadModelStore whose cursors are base64url (unpadded) of
// {"m","a"} and of an HMAC-SHA256 over it under a key only the store holds. It decodes them
// leniently, as encoding/base64 does by default, so a cursor that differs only in the unused
// trailing bits of either part reads as the cursor issued — which is what it is.
type signedCursorStore struct {
	*memory.ReadModelStore
	key []byte
}

type signedBody struct {
	Model string `json:"m"`
	After string `json:"a"`
}

func newSignedCursorStore() signedCursorStore {
	key := make([]byte, 32)
	rand.Read(key)
	return signedCursorStore{memory.NewReadModelStore(), key}
}

func (s signedCursorStore) mac(body []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write(body)
	return h.Sum(nil)
}

func (s signedCursorStore) Query(ctx context.Context, model string, q spi.ReadModelQuery) (spi.ReadModelPage, error) {
	if q.Cursor != "" {
		enc, sig, _ := bytes.Cut([]byte(q.Cursor), []byte("."))
		body, err1 := base64.RawURLEncoding.DecodeString(string(enc))
		mac, err2 := base64.RawURLEncoding.DecodeString(string(sig))
		var b signedBody
		if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(body)) || json.Unmarshal(body, &b) != nil {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "not a cursor this store issued")
		}
		if b.Model != model {
			return spi.ReadModelPage{}, spi.Invalid("query", "cursor", "issued for another model")
		}
		q.Cursor = spi.EncodeCursor(model, b.After)
	}
	p, err := s.ReadModelStore.Query(ctx, model, q)
	if err != nil || p.NextCursor == "" {
		return p, err
	}
	after, err := spi.DecodeCursor(model, p.NextCursor)
	if err != nil {
		return spi.ReadModelPage{}, err
	}
	body, _ := json.Marshal(signedBody{model, after})
	p.NextCursor = base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(s.mac(body))
	return p, nil
}

// TestSignedCursorReadModelStorePasses is a positive control: a store with signed cursors that
// decodes base64 leniently is correct and must pass the whole kit — in particular cursor-forged
// must not count an alteration of padding bits, which decodes to the same cursor, as a forgery.
func TestSignedCursorReadModelStorePasses(t *testing.T) {
	kits.ReadModelStore(t, func(context.Context) (spi.ReadModelStore, func(), error) {
		return newSignedCursorStore(), nil, nil
	})
}
