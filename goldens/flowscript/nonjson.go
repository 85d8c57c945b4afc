package flowscript

import (
	"encoding/json"
	"fmt"
	"math"
)

// FloatKey is the single member of the object that stands, inside an emit, stream or ui payload of
// a version 2 script, for a number JSON cannot hold: {"$float": "NaN"}, {"$float": "Infinity"} or
// {"$float": "-Infinity"}. The interpreter hands the kernel the payload with the IEEE 754 value in
// its place, so the kernel sees a payload with no JSON form (spec §3: no digest, persisted as
// null, never stamped). The step function's Args keep the marker as written; a client of another
// language maps it to its own NaN or infinity before it makes the call.
const FloatKey = "$float"

// nonJSONFloats are the values FloatKey may name.
func nonJSONFloats() map[string]float64 {
	return map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}
}

// floatMarker recognises {"$float": name}: ok when m is a marker, err when its name is unknown.
func floatMarker(m map[string]any) (v float64, ok bool, err error) {
	raw, has := m[FloatKey]
	if !has || len(m) != 1 {
		return 0, false, nil
	}
	name, _ := raw.(string)
	f, known := nonJSONFloats()[name]
	if !known {
		return 0, true, fmt.Errorf(`{"%s": %v}: want "NaN", "Infinity" or "-Infinity"`, FloatKey, raw)
	}
	return f, true, nil
}

// NonJSON decodes a JSON value with every {"$float": ...} marker replaced by its number. found
// says whether there was one (then v has no JSON form); without one v is the plain decoding.
func NonJSON(raw json.RawMessage) (v any, found bool, err error) {
	x, err := decodeAny(raw)
	if err != nil {
		return nil, false, err
	}
	var walk func(any) (any, error)
	walk = func(x any) (any, error) {
		switch t := x.(type) {
		case map[string]any:
			f, ok, err := floatMarker(t)
			if ok {
				found = true
				return f, err
			}
			for k, e := range t {
				if t[k], err = walk(e); err != nil {
					return nil, err
				}
			}
		case []any:
			for i, e := range t {
				var err error
				if t[i], err = walk(e); err != nil {
					return nil, err
				}
			}
		}
		return x, nil
	}
	v, err = walk(x)
	return v, found, err
}

// checkFloats refuses a marker where it is not allowed (allowed: an emit, stream or ui payload of
// a version 2 script) and an unknown marker name anywhere it is.
func checkFloats(v json.RawMessage, allowed bool, format string) error {
	_, found, err := NonJSON(v)
	switch {
	case !found:
		return nil
	case format == Format1:
		return fmt.Errorf(`a {"%s": ...} number needs format %q`, FloatKey, Format)
	case !allowed:
		return fmt.Errorf(`a {"%s": ...} number is allowed only in an emit, stream or ui payload`, FloatKey)
	}
	return err
}
