package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
)

// DecodeError describes an error of encoding/json decoding a request into a Go value the way the
// caller wrote the request: the field as a dotted path (empty for the value itself) and what JSON
// it wants. It never names a Go type or a Go struct of the server, which encoding/json's own text
// does ("cannot unmarshal string into Go struct field readRangeParams.from of type int64").
func DecodeError(err error) (field, reason string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		got := te.Value
		if got == "" {
			got = "another value"
		}
		return te.Field, fmt.Sprintf("want %s, got %s", jsonKind(te.Type), got)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		return strings.Trim(name, `"`), "unknown field"
	}
	return "", goNames().ReplaceAllString(msg, "")
}

// DecodeText is DecodeError as one text: "field: reason", or the reason alone.
func DecodeText(err error) string {
	field, reason := DecodeError(err)
	if field == "" {
		return reason
	}
	return field + ": " + reason
}

// goNames matches what encoding/json's messages say of Go: " into Go struct field T.f of type
// int64", " into Go value of type T".
var goNames = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(` into Go (struct field \S+ of type|value of type) \S+`)
})

// jsonKind names the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		return fmt.Sprintf("an integer from -2^%d to 2^%d-1", bits-1, bits-1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("an integer from 0 to 2^%d-1", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}
