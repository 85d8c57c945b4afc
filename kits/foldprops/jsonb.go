package foldprops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// JSONBReorder rewrites a JSON text the way a normalising store returns it: PostgreSQL jsonb
// orders object keys by length, then bytes, keeps the last of repeated keys, and prints its own
// whitespace. The value is unchanged; only its spelling moves, so a fold must not depend on it.
func JSONBReorder(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("jsonb reorder: %w", err)
	}
	var out bytes.Buffer
	if err := writeJSONB(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func writeJSONB(w *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if len(keys[i]) != len(keys[j]) {
				return len(keys[i]) < len(keys[j])
			}
			return keys[i] < keys[j]
		})
		w.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				w.WriteString(", ")
			}
			kb, _ := json.Marshal(k)
			w.Write(kb)
			w.WriteString(": ")
			if err := writeJSONB(w, x[k]); err != nil {
				return err
			}
		}
		w.WriteString("}")
	case []any:
		w.WriteString("[")
		for i, e := range x {
			if i > 0 {
				w.WriteString(", ")
			}
			if err := writeJSONB(w, e); err != nil {
				return err
			}
		}
		w.WriteString("]")
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("jsonb reorder: %w", err)
		}
		w.Write(b)
	}
	return nil
}
