package deploysim

import (
	"embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// The simulated flows are flow scripts (goldens/flowscript, docs/goldens.md), one file per flow
// and code version in flows/: an order (reserve, emit, approval gate, an at-most-once charge,
// emit; v2 adds a notify step) and a batch (a step, an emit, a parallel of two steps, a step, an
// emit). Effects are the format's deterministic fakes, so any worker re-running a step produces
// the same output. Parallel branches run serially in branch order, so the log is a function of
// the seed alone.

//go:embed flows/*.json
var flowFiles embed.FS

const (
	flowOrder = "order"
	flowBatch = "batch"
	gateOK    = "approval"
)

func codeHash(flow string, version int) string { return fmt.Sprintf("%s-v%d", flow, version) }

var (
	scriptsOnce sync.Once
	scripts     map[string]*flowscript.Script // "<flow>-v<n>"
	scriptsErr  error
)

func loadScripts() (map[string]*flowscript.Script, error) {
	scriptsOnce.Do(func() {
		scripts = map[string]*flowscript.Script{}
		for _, flow := range []string{flowOrder, flowBatch} {
			for v := 1; v <= 2; v++ {
				name := fmt.Sprintf("flows/%s-v%d.json", flow, v)
				b, err := flowFiles.ReadFile(name)
				if err == nil {
					var s *flowscript.Script
					if s, err = flowscript.Decode(name, b); err == nil {
						scripts[codeHash(flow, v)] = s
						continue
					}
				}
				scriptsErr = fmt.Errorf("deploysim: %s: %w", name, err)
				return
			}
		}
	})
	return scripts, scriptsErr
}

// flowDefs returns the flows of code version v (1 or 2).
func flowDefs(v int) []kernel.FlowDef {
	ss, err := loadScripts()
	if err != nil {
		panic(err) // embedded files: a build defect, proven by TestFlowScriptsDecode
	}
	var out []kernel.FlowDef
	for _, flow := range []string{flowOrder, flowBatch} {
		out = append(out, flowscript.Def(ss[codeHash(flow, v)], flowscript.Options{SerialBranches: true}))
	}
	return out
}

// fakeOutput is what the named fake returns for input: the output an in-doubt verdict "applied"
// records, as the operator who checked the external system would.
func fakeOutput(tool string, input json.RawMessage) json.RawMessage {
	def, ok := flowscript.Effects()[tool]
	if !ok {
		return nil
	}
	out, err := def.Fn(nil, input)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}
