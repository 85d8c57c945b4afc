package spi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// ReadModelMaxLimit is the largest page a ReadModelStore query may ask for (I-PLUGIN-8).
const ReadModelMaxLimit = 1000

// ReadModelDoc is one document of a read model.
type ReadModelDoc struct {
	ID  string          `json:"id"`
	Doc json.RawMessage `json:"doc"`
}

// ReadModelQuery asks for one page of a model's documents, ascending by id.
type ReadModelQuery struct {
	// Limit is the page size, 1..ReadModelMaxLimit; anything else is ErrInvalidArgument.
	Limit int `json:"limit"`
	// Cursor is "" for the first page, else a NextCursor this store returned for the same model.
	// A cursor it did not issue, or issued for another model, is ErrInvalidArgument.
	Cursor string `json:"cursor,omitempty"`
}

// ReadModelPage is one page: at most Limit documents ascending by id, and the cursor of the next
// page ("" when no document follows this page).
type ReadModelPage struct {
	Docs       []ReadModelDoc `json:"docs"`
	NextCursor string         `json:"nextCursor"`
}

// ReadModelStore is the plugin-tier projection seam (spec §7): documents per model, upserted by id
// and queried in keyset pages (I-PLUGIN-7, I-PLUGIN-8, I-PLUGIN-9).
type ReadModelStore interface {
	// Upsert stores doc (any JSON value, kept as the same value) under (model, id), replacing what
	// was there whole, never merged nor skipped as unchanged (I-PLUGIN-7, I-PLUGIN-10, I-PLUGIN-15).
	Upsert(ctx context.Context, model, id string, doc json.RawMessage) error
	// Query returns one page of model, ascending by id (in byte order, recommended, I-STORE-28).
	Query(ctx context.Context, model string, q ReadModelQuery) (ReadModelPage, error)
}

// ReadModelStoreVersioned is how a ReadModelStore states the SPI version it claims.
type ReadModelStoreVersioned interface {
	ReadModelStoreSpiVersion() string
}

// ValidateUpsert refuses an empty model or id and a document that is not JSON.
func ValidateUpsert(model, id string, doc json.RawMessage) error {
	switch {
	case model == "":
		return Invalid("upsert", "model", "empty")
	case id == "":
		return Invalid("upsert", "id", "empty")
	case len(doc) == 0 || !json.Valid(doc):
		return Invalid("upsert", "doc", "not valid JSON")
	}
	return nil
}

// ValidateQuery refuses an empty model and a limit outside 1..ReadModelMaxLimit, and decodes the
// cursor: after is the id the page starts after ("" for the first page).
func ValidateQuery(model string, q ReadModelQuery) (after string, err error) {
	if model == "" {
		return "", Invalid("query", "model", "empty")
	}
	if q.Limit < 1 || q.Limit > ReadModelMaxLimit {
		return "", Invalid("query", "limit", "%d is outside 1..%d", q.Limit, ReadModelMaxLimit)
	}
	if q.Cursor == "" {
		return "", nil
	}
	return DecodeCursor(model, q.Cursor)
}

// cursorBody is what a reference cursor carries.
type cursorBody struct {
	Model string `json:"m"`
	After string `json:"a"`
}

// EncodeCursor is the reference stores' cursor: the model and the last id of the page, base64url,
// with a checksum over both so an altered or made-up cursor is refused. It is opaque to callers.
func EncodeCursor(model, after string) string {
	body, _ := json.Marshal(cursorBody{Model: model, After: after})
	return base64.RawURLEncoding.EncodeToString(body) + "." + cursorSum(body)
}

// DecodeCursor checks a reference cursor for model and returns the id it resumes after.
func DecodeCursor(model, cursor string) (string, error) {
	enc, sum, ok := strings.Cut(cursor, ".")
	// Strict: a cursor whose unused trailing bits differ is not the one issued.
	body, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if !ok || err != nil || sum != cursorSum(body) {
		return "", Invalid("query", "cursor", "not a cursor this store issued")
	}
	var b cursorBody
	if err := json.Unmarshal(body, &b); err != nil || b.After == "" {
		return "", Invalid("query", "cursor", "not a cursor this store issued")
	}
	if b.Model != model {
		return "", Invalid("query", "cursor", "issued for another model")
	}
	return b.After, nil
}

func cursorSum(body []byte) string {
	s := sha256.Sum256(append([]byte("loom-readmodel-cursor\x00"), body...))
	return hex.EncodeToString(s[:12])
}
