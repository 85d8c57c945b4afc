package kernelkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// firstKeyWins reads a request that names a key twice as a decoder keeping the first does, and
// hands the carrier that reading (the json-first-key defect): the rest of the request is as strict
// as ever.
func firstKeyWins(h http.Handler) http.Handler {
	return rereadUnary(h, jsonstrict.Options{}, func(b []byte, se *jsonstrict.Error) []byte {
		if se.Kind != jsonstrict.Duplicate {
			return b
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var out bytes.Buffer
		if firstKeys(d, &out) != nil {
			return b
		}
		return out.Bytes()
	})
}

// jsonParseReads reads a unary request that is not strict JSON as JSON.parse does — the last of a
// repeated key, U+FFFD for invalid bytes, the nearest double of a number — and hands the carrier
// that reading (the json-parse kernel: I-NET-50's second option, certified with a recommendation).
func jsonParseReads(h http.Handler) http.Handler {
	return rereadUnary(h, jsonstrict.Options{ExactDoublesIn: "params"}, func(b []byte, se *jsonstrict.Error) []byte {
		var v any
		if se.Kind == jsonstrict.Syntax || se.Kind == jsonstrict.TooDeep || json.Unmarshal(b, &v) != nil {
			return b
		}
		var out bytes.Buffer
		e := json.NewEncoder(&out)
		e.SetEscapeHTML(false)
		if e.Encode(v) != nil {
			return b
		}
		return out.Bytes()
	})
}

// rereadUnary hands h a unary request that strict JSON (opts) refuses as read reads it; a stream,
// and a request strict JSON takes, pass as they are.
func rereadUnary(h http.Handler, opts jsonstrict.Options, read func([]byte, *jsonstrict.Error) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Content-Type"), carrier.ContentTypeStream) {
			h.ServeHTTP(w, r)
			return
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var se *jsonstrict.Error
		if err := jsonstrict.Check(b, opts); errors.As(err, &se) {
			b = read(b, se)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		h.ServeHTTP(w, r)
	})
}

// firstKeys copies the next JSON value of d to w, keeping the first member of each repeated key.
func firstKeys(d *json.Decoder, w *bytes.Buffer) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		e := json.NewEncoder(w)
		e.SetEscapeHTML(false)
		if err := e.Encode(tok); err != nil {
			return err
		}
		w.Truncate(w.Len() - 1) // the encoder's newline
		return nil
	}
	open, end := byte(delim), byte('}')
	if open == '[' {
		end = ']'
	}
	w.WriteByte(open)
	seen := map[string]bool{}
	for n := 0; d.More(); {
		if open == '{' {
			k, err := d.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			if seen[key] {
				var skip json.RawMessage
				if err := d.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			seen[key] = true
			if n > 0 {
				w.WriteByte(',')
			}
			kb, _ := json.Marshal(key)
			w.Write(kb)
			w.WriteByte(':')
		} else if n > 0 {
			w.WriteByte(',')
		}
		n++
		if err := firstKeys(d, w); err != nil {
			return err
		}
	}
	if _, err := d.Token(); err != nil {
		return err
	}
	w.WriteByte(end)
	return nil
}
