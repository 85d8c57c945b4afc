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
		if err := jsonstrict.Check(b, jsonstrict.Options{}); errors.As(err, &se) && se.Kind == jsonstrict.Duplicate {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			var out bytes.Buffer
			if firstKeys(d, &out) == nil {
				b = out.Bytes()
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		h.ServeHTTP(w, r)
	})
}

// jsonParseReads reads a unary request that is not strict JSON as JSON.parse does — the last of a
// repeated key, U+FFFD for invalid bytes, the nearest double of a number — and hands the carrier
// that reading (the json-parse kernel: I-NET-50's second option, certified with a recommendation).
func jsonParseReads(h http.Handler) http.Handler {
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
		if err := jsonstrict.Check(b, jsonstrict.Options{ExactDoublesIn: "params"}); errors.As(err, &se) && se.Kind != jsonstrict.Syntax && se.Kind != jsonstrict.TooDeep {
			var v any
			if json.Unmarshal(b, &v) == nil {
				var out bytes.Buffer
				e := json.NewEncoder(&out)
				e.SetEscapeHTML(false)
				if e.Encode(v) == nil {
					b = out.Bytes()
				}
			}
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
