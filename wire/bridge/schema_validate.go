package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// decodeJSON parses raw the way the validator wants it: numbers kept exact (json.Number), one
// value and nothing after it.
func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// validate checks v against n; the error names the first place, in the instance and in the
// schema, that does not match.
func (n *node) validate(v any) error {
	return n.check(v, "")
}

// mismatch is one failed assertion: where in the instance, which schema, and what.
func mismatch(n *node, at, format string, args ...any) error {
	return fmt.Errorf("at '%s' (%s): %s", at, n.loc, fmt.Sprintf(format, args...))
}

// check validates v, found at the JSON pointer at, against n (2020-12: $ref applies beside the
// other keywords).
func (n *node) check(v any, at string) error {
	if n.reject {
		return mismatch(n, at, "no value is allowed here")
	}
	if n.ref != nil {
		if err := n.ref.check(v, at); err != nil {
			return err
		}
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		return mismatch(n, at, "got %s, want %s", jsonType(v), strings.Join(n.types, " or "))
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(x any) bool { return equalJSON(v, x) }) {
		return mismatch(n, at, "value must be one of %s", compact(n.enum))
	}
	if n.hasConst && !equalJSON(v, n.constant) {
		return mismatch(n, at, "value must be %s", compact(n.constant))
	}
	switch x := v.(type) {
	case map[string]any:
		if err := n.checkObject(x, at); err != nil {
			return err
		}
	case []any:
		if err := n.checkArray(x, at); err != nil {
			return err
		}
	case string:
		if n.minLength >= 0 {
			if l := utf8.RuneCountInString(x); l < n.minLength {
				return mismatch(n, at, "length must be >= %d, but got %d", n.minLength, l)
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			return mismatch(n, at, "%s does not match pattern %s", strconv.Quote(x), strconv.Quote(n.pattern.String()))
		}
	case json.Number:
		if n.minimum != nil || n.maximum != nil {
			r, ok := new(big.Rat).SetString(string(x))
			switch {
			case !ok:
				return mismatch(n, at, "%s is not a number", x)
			case n.minimum != nil && r.Cmp(n.minimum) < 0:
				return mismatch(n, at, "must be >= %s but found %s", n.minimum.RatString(), x)
			case n.maximum != nil && r.Cmp(n.maximum) > 0:
				return mismatch(n, at, "must be <= %s but found %s", n.maximum.RatString(), x)
			}
		}
	}
	if n.oneOf != nil {
		valid := 0
		for _, s := range n.oneOf {
			if s.check(v, at) == nil {
				valid++
			}
		}
		if valid != 1 {
			return mismatch(n, at, "valid against %d of oneOf's %d schemas, want exactly 1", valid, len(n.oneOf))
		}
	}
	if n.not != nil && n.not.check(v, at) == nil {
		return mismatch(n, at, "matches the schema it must not (%s)", n.not.loc)
	}
	return nil
}

// checkObject applies the object keywords, members in sorted order so the message is stable.
func (n *node) checkObject(obj map[string]any, at string) error {
	if n.minProperties >= 0 && len(obj) < n.minProperties {
		return mismatch(n, at, "minimum %d properties required, but got %d", n.minProperties, len(obj))
	}
	for _, name := range n.required {
		if _, ok := obj[name]; !ok {
			return mismatch(n, at, "missing property %s", strconv.Quote(name))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		here := at + "/" + strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
		if n.propertyNames != nil {
			if err := n.propertyNames.check(name, at); err != nil {
				return mismatch(n, at, "property name %s: %v", strconv.Quote(name), err)
			}
		}
		if s, ok := n.properties[name]; ok {
			if err := s.check(obj[name], here); err != nil {
				return err
			}
			continue
		}
		if n.additional != nil {
			if n.additional.reject {
				return mismatch(n, at, "additional property %s not allowed", strconv.Quote(name))
			}
			if err := n.additional.check(obj[name], here); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkArray applies the array keywords.
func (n *node) checkArray(list []any, at string) error {
	if n.minItems >= 0 && len(list) < n.minItems {
		return mismatch(n, at, "minimum %d items required, but got %d", n.minItems, len(list))
	}
	if n.uniqueItems {
		for i := range list {
			for j := i + 1; j < len(list); j++ {
				if equalJSON(list[i], list[j]) {
					return mismatch(n, at, "items at %d and %d are equal", i, j)
				}
			}
		}
	}
	if n.items != nil {
		for i, x := range list {
			if err := n.items.check(x, at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonType is the JSON type of a decoded value (a whole number is an integer).
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if isInteger(x) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// hasType reports whether v is of the JSON Schema type t (an integer is a number too).
func hasType(v any, t string) bool {
	got := jsonType(v)
	return got == t || t == "number" && got == "integer"
}

// isInteger reports whether a JSON number has no fractional part (1.0 and 1e2 are integers).
func isInteger(x json.Number) bool {
	s := string(x)
	if strings.TrimLeft(strings.TrimPrefix(s, "-"), "0123456789") == "" {
		return true
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

// equalJSON is JSON value equality: numbers by value, objects whatever their member order.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalJSON)
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	default:
		return a == b // nil, bool, string
	}
}

// compact is a value as one line of JSON, for messages.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
