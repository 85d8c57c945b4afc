package jsondiff

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// notJSON stands for bytes that should have been JSON and are not (a json.RawMessage a store
// returned broken): shown as what they are, never dropped.
type notJSON struct{ text string }

// absent marks a member or element one side does not have.
type absent struct{}

// Value is v as the JSON it carries: map[string]any, []any, json.Number (the number's own
// spelling), string, bool or nil. A json.RawMessage or []byte holding JSON is that JSON's value;
// one holding something else is shown as text marked "not JSON". Values that are already JSON
// values come back as they are.
func Value(v any) any {
	if isValue(v, 0) {
		return v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wrapBytes(v)); err == nil {
		if out, ok := decode(buf.Bytes()); ok {
			return out
		}
	}
	return walk(reflect.ValueOf(v), 0)
}

// isValue reports whether v is already a decoded JSON value (shallowly for large containers).
func isValue(v any, depth int) bool {
	if depth > 3 {
		return true
	}
	switch x := v.(type) {
	case nil, json.Number, string, bool, notJSON:
		return true
	case map[string]any:
		for _, e := range x {
			if !isValue(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isValue(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// wrapBytes turns a top-level []byte into a json.RawMessage when it holds JSON, so JSON text
// handed over as bytes is shown as its value rather than as base64.
func wrapBytes(v any) any {
	if b, ok := v.([]byte); ok && json.Valid(b) {
		return json.RawMessage(b)
	}
	return v
}

func decode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

var (
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// walk builds the JSON value of rv member by member, for values encoding/json refuses as a whole
// (a json.RawMessage that is not JSON somewhere inside): each part that encodes is its value,
// each that does not is marked not JSON.
func walk(rv reflect.Value, depth int) any {
	if !rv.IsValid() || depth > 64 {
		return nil
	}
	t := rv.Type()
	switch {
	case t == rawType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		b := rv.Bytes()
		if len(b) == 0 && t == rawType {
			return nil
		}
		if v, ok := decode(b); ok && json.Valid(b) {
			return v
		}
		return notJSON{string(b)}
	case t.Implements(marshalerType) || t.Implements(textType):
		b, err := json.Marshal(rv.Interface())
		if v, ok := decode(b); err == nil && ok {
			return v
		}
		return notJSON{fmt.Sprint(rv.Interface())}
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return walk(rv.Elem(), depth+1)
	case reflect.Struct:
		out := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := rv.Field(i)
			if strings.Contains(opts, "omitempty") && fv.IsZero() {
				continue
			}
			out[name] = walk(fv, depth+1)
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return nil
		}
		out := map[string]any{}
		for it := rv.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = walk(it.Value(), depth+1)
		}
		return out
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = walk(rv.Index(i), depth+1)
		}
		return out
	}
	b, err := json.Marshal(rv.Interface())
	if v, ok := decode(b); err == nil && ok {
		return v
	}
	return notJSON{fmt.Sprint(rv.Interface())}
}

// equal reports whether two JSON values are the same value: numbers compared as spelled.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	}
	return a == b
}
