package bridge

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
	params   map[string]*jsonschema.Schema
	result   map[string]*jsonschema.Schema
	response *jsonschema.Schema
	errorObj *jsonschema.Schema
}

// CompileSchemas compiles the embedded schemas.
func CompileSchemas() (*Schemas, error) {
	c := jsonschema.NewCompiler()
	entries, err := fs.ReadDir(schemaFiles, "schema")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := schemaFiles.ReadFile(path.Join("schema", e.Name()))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
		if err := c.AddResource(SchemaBase+e.Name(), doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", e.Name(), err)
		}
	}
	s := &Schemas{params: map[string]*jsonschema.Schema{}, result: map[string]*jsonschema.Schema{}}
	names := []string{MethodHandshake}
	for _, m := range Methods() {
		names = append(names, m.Name)
	}
	for _, n := range names {
		if s.params[n], err = c.Compile(SchemaBase + n + ".json#/$defs/params"); err != nil {
			return nil, fmt.Errorf("schema %s params: %w", n, err)
		}
		if s.result[n], err = c.Compile(SchemaBase + n + ".json#/$defs/result"); err != nil {
			return nil, fmt.Errorf("schema %s result: %w", n, err)
		}
	}
	if s.response, err = c.Compile(SchemaBase + "response.json"); err != nil {
		return nil, err
	}
	if s.errorObj, err = c.Compile(SchemaBase + "defs.json#/$defs/error"); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeJSON parses raw the way the validator wants it (numbers kept exact).
func decodeJSON(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
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

func (s *Schemas) validate(sch *jsonschema.Schema, method, part string, raw []byte) error {
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
	if err := sch.Validate(v); err != nil {
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
