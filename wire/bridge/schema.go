package bridge

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

//go:embed schema/*.json
var schemaFiles embed.FS

// SchemaBase is the $id prefix of every bridge schema; the files live in wire/bridge/schema.
const SchemaBase = "https://loom-kernel.github.io/loom-conform/bridge/v1/"

// SchemaFS returns the JSON Schemas of every bridge message (one file per method with $defs params
// and result, plus defs.json, request.json and response.json).
func SchemaFS() fs.FS {
	sub, _ := fs.Sub(schemaFiles, "schema")
	return sub
}

// Schemas holds the compiled schemas: per method, its params and result; and the response frame.
type Schemas struct {
	params   map[string]*node
	result   map[string]*node
	response *node
	errorObj *node
}

// CompileSchemas compiles the embedded schemas (schema_compile.go: the part of JSON Schema 2020-12
// they use; a keyword outside it is a compile error).
func CompileSchemas() (*Schemas, error) {
	c, err := compileDocs()
	if err != nil {
		return nil, err
	}
	s := &Schemas{params: map[string]*node{}, result: map[string]*node{}}
	names := []string{MethodHandshake}
	for _, m := range Methods() {
		names = append(names, m.Name)
	}
	for _, n := range names {
		if s.params[n], err = c.schemaAt("", SchemaBase+n+".json#/$defs/params"); err != nil {
			return nil, fmt.Errorf("schema %s params: %w", n, err)
		}
		if s.result[n], err = c.schemaAt("", SchemaBase+n+".json#/$defs/result"); err != nil {
			return nil, fmt.Errorf("schema %s result: %w", n, err)
		}
	}
	if s.response, err = c.schemaAt("", SchemaBase+"response.json"); err != nil {
		return nil, err
	}
	if s.errorObj, err = c.schemaAt("", SchemaBase+"defs.json#/$defs/error"); err != nil {
		return nil, err
	}
	return s, nil
}

// compileDocs compiles every embedded schema document whole, whatever the methods refer to.
func compileDocs() (*compiler, error) {
	entries, err := fs.ReadDir(schemaFiles, "schema")
	if err != nil {
		return nil, err
	}
	c := &compiler{docs: map[string]any{}, nodes: map[string]*node{}}
	for _, e := range entries {
		b, err := schemaFiles.ReadFile(path.Join("schema", e.Name()))
		if err != nil {
			return nil, err
		}
		if c.docs[e.Name()], err = decodeJSON(b); err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
	}
	for _, e := range entries {
		if _, err := c.schemaAt(e.Name(), ""); err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
	}
	return c, nil
}

// ValidateParams checks the params of a call to method.
func (s *Schemas) ValidateParams(method string, raw []byte) error {
	return s.validate(s.params[method], method, "params", raw)
}

// ValidateResult checks the result of a call to method.
func (s *Schemas) ValidateResult(method string, raw []byte) error {
	return s.validate(s.result[method], method, "result", raw)
}

// ValidateResponse checks a whole JSON-RPC response frame.
func (s *Schemas) ValidateResponse(raw []byte) error {
	return s.validate(s.response, "response", "frame", raw)
}

func (s *Schemas) validate(sch *node, method, part string, raw []byte) error {
	if sch == nil {
		return fmt.Errorf("no schema for %s", method)
	}
	if len(raw) == 0 {
		raw = []byte("null")
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("%s %s is not JSON: %v", method, part, err)
	}
	if err := sch.validate(v); err != nil {
		return fmt.Errorf("%s %s does not match its schema: %s", method, part, oneLine(err))
	}
	return nil
}

// oneLine flattens a validation error (which lists causes on several lines) and bounds its length.
func oneLine(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	return msg
}
