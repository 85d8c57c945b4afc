package bridge

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// The bridge's schemas are JSON Schema 2020-12 documents, and this file compiles the part of the
// dialect they use (I-PERF-10: a general validator compiled its meta-schemas when the binary
// started, a third of every command's start). A keyword outside that part fails the compile, so a
// schema that grows one cannot be checked less strictly than it says: TestSchemasAgreeWithJSONSchema
// holds the verdicts to a general 2020-12 validator's.

// node is one compiled schema. The true schema is a node with no assertion, the false schema one
// with reject set; an absent keyword is a zero field (a negative bound).
type node struct {
	loc    string // file#pointer, for messages
	reject bool

	ref           *node
	types         []string
	enum          []any
	hasConst      bool
	constant      any
	required      []string
	properties    map[string]*node
	additional    *node
	propertyNames *node
	minProperties int
	items         *node
	minItems      int
	uniqueItems   bool
	minLength     int
	pattern       *regexp.Regexp
	minimum       *big.Rat
	maximum       *big.Rat
	oneOf         []*node
	not           *node
}

// annotations are the keywords that assert nothing (contentEncoding only annotates in 2020-12
// unless a validator is told to assert content, which the bridge's never was).
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "$comment": true,
	"title": true, "description": true, "examples": true, "default": true, "contentEncoding": true}

// compiler compiles schemas from a set of documents by location (file name and JSON pointer);
// each location compiles once, so references between documents and cycles resolve.
type compiler struct {
	docs  map[string]any
	nodes map[string]*node
}

// schemaAt compiles the schema at ref, resolved against the document named base.
func (c *compiler) schemaAt(base, ref string) (*node, error) {
	file, ptr, _ := strings.Cut(strings.TrimPrefix(ref, SchemaBase), "#")
	if file == "" {
		file = base
	}
	if n, ok := c.nodes[file+"#"+ptr]; ok {
		return n, nil
	}
	v, ok := c.docs[file]
	if !ok {
		return nil, fmt.Errorf("%s: no schema document %q", ref, file)
	}
	if ptr != "" {
		if !strings.HasPrefix(ptr, "/") {
			return nil, fmt.Errorf("%s: a fragment that is not a JSON pointer", ref)
		}
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: no %q", ref, tok)
			}
			if v, ok = obj[tok]; !ok {
				return nil, fmt.Errorf("%s: no %q", ref, tok)
			}
		}
	}
	return c.compile(file, ptr, v)
}

// compile compiles the schema v found at file#ptr.
func (c *compiler) compile(file, ptr string, v any) (*node, error) {
	n := &node{loc: file + "#" + ptr, minProperties: -1, minItems: -1, minLength: -1}
	c.nodes[n.loc] = n
	switch s := v.(type) {
	case bool:
		n.reject = !s
		return n, nil
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(s)) {
			if err := c.keyword(n, file, ptr, k, s[k]); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", n.loc, k, err)
			}
		}
		return n, nil
	}
	return nil, fmt.Errorf("%s: a schema is an object or a boolean, not %s", n.loc, jsonType(v))
}

// keyword compiles one keyword k of value v into n.
func (c *compiler) keyword(n *node, file, ptr, k string, v any) error {
	sub := func(path string, v any) (*node, error) { return c.compile(file, ptr+"/"+path, v) }
	var err error
	switch k {
	case "$ref":
		ref, ok := v.(string)
		if !ok {
			return fmt.Errorf("not a string")
		}
		n.ref, err = c.schemaAt(file, ref)
	case "$id":
		if ptr != "" || v != SchemaBase+file {
			return fmt.Errorf("%v: only a document's own URL, at its root", v)
		}
	case "type":
		names, ok := v.([]any)
		if !ok {
			names = []any{v}
		}
		for _, x := range names {
			t, ok := x.(string)
			if !ok || !strings.Contains(" null boolean object array number string integer ", " "+t+" ") {
				return fmt.Errorf("%v is not a type", x)
			}
			n.types = append(n.types, t)
		}
	case "enum":
		if n.enum, _ = v.([]any); n.enum == nil {
			return fmt.Errorf("not an array")
		}
	case "const":
		n.hasConst, n.constant = true, v
	case "required":
		if n.required, err = stringList(v); err != nil {
			return err
		}
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("not an object")
		}
		n.properties = map[string]*node{}
		for name, x := range props {
			esc := strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
			if n.properties[name], err = sub("properties/"+esc, x); err != nil {
				return err
			}
		}
	case "additionalProperties":
		n.additional, err = sub(k, v)
	case "propertyNames":
		n.propertyNames, err = sub(k, v)
	case "items":
		n.items, err = sub(k, v)
	case "not":
		n.not, err = sub(k, v)
	case "oneOf":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("not a non-empty array")
		}
		for i, x := range list {
			s, err := sub(fmt.Sprintf("oneOf/%d", i), x)
			if err != nil {
				return err
			}
			n.oneOf = append(n.oneOf, s)
		}
	case "minProperties":
		n.minProperties, err = count(v)
	case "minItems":
		n.minItems, err = count(v)
	case "minLength":
		n.minLength, err = count(v)
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("not a boolean")
		}
		n.uniqueItems = b
	case "pattern":
		p, ok := v.(string)
		if !ok {
			return fmt.Errorf("not a string")
		}
		n.pattern, err = regexp.Compile(p)
	case "minimum":
		n.minimum, err = rat(v)
	case "maximum":
		n.maximum, err = rat(v)
	default:
		if !annotations[k] {
			return fmt.Errorf("a keyword the bridge's schema compiler does not know (add it with a case that TestSchemasAgreeWithJSONSchema covers)")
		}
	}
	return err
}

// stringList reads a list of strings (required).
func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not an array")
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, fmt.Errorf("%v is not a string", x)
		}
	}
	return out, nil
}

// count reads a non-negative integer bound.
func count(v any) (int, error) {
	r, err := rat(v)
	if err != nil || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return 0, fmt.Errorf("%v is not a non-negative integer", v)
	}
	return int(r.Num().Int64()), nil
}

// rat reads a JSON number exactly.
func rat(v any) (*big.Rat, error) {
	num, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%v is not a number", v)
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return nil, fmt.Errorf("%v is not a number", v)
	}
	return r, nil
}
