package bridge_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Every example exchange in docs/bridge.md matches the schemas, and every wire method has one.
func TestDocExamplesMatchSchemas(t *testing.T) {
	b, err := os.ReadFile("../../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := bridge.CompileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	sections := regexp.MustCompile(`(?m)^### `).Split(doc[strings.Index(doc, "## Example exchanges"):], -1)[1:]
	block := regexp.MustCompile("(?s)```json\n(.*?)\n```")
	covered := map[string]bool{}
	for _, sec := range sections {
		name := strings.Fields(sec)[0]
		blocks := block.FindAllStringSubmatch(sec, -1)
		if len(blocks) != 2 {
			t.Errorf("docs/bridge.md %s: %d json blocks, want request and response", name, len(blocks))
			continue
		}
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(blocks[0][1]), &req); err != nil || req.Method != name {
			t.Errorf("docs/bridge.md %s: request method %q (%v)", name, req.Method, err)
			continue
		}
		covered[name] = true
		if err := s.ValidateParams(name, req.Params); err != nil {
			t.Errorf("docs/bridge.md %s request: %v", name, err)
		}
		if err := s.ValidateResponse([]byte(blocks[1][1])); err != nil {
			t.Errorf("docs/bridge.md %s response: %v", name, err)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		_ = json.Unmarshal([]byte(blocks[1][1]), &resp)
		if len(resp.Result) > 0 {
			if err := s.ValidateResult(name, resp.Result); err != nil {
				t.Errorf("docs/bridge.md %s result: %v", name, err)
			}
		}
	}
	for _, m := range append(bridge.Methods(), bridge.Method{Name: bridge.MethodHandshake}) {
		if !covered[m.Name] {
			t.Errorf("docs/bridge.md has no example exchange for %s", m.Name)
		}
	}
}
