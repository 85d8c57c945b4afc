package kernelprops

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/manifest"
)

// Script writes the program in the one flow-as-data format, loom-flowscript/1 (docs/goldens.md):
// each op becomes the syscall statement with the effect fake that ends the same way (echo,
// fail-untyped, fail-typed, slow past its timeout, cancelled, emit-from-effect, once), and every
// emit the same event type and payload. A failing generated program can so be replayed by
// `loom-conform replay` or kept as a golden. An emit whose payload has no JSON form (emit-nan)
// cannot be written in JSON and is an error.
func (p Program) Script(id string) (*flowscript.Script, error) {
	body, err := scriptBody(p)
	if err != nil {
		return nil, err
	}
	return &flowscript.Script{Format: flowscript.Format, ID: id, Body: body, Return: json.RawMessage(`"done"`)}, nil
}

func scriptBody(ops []Op) ([]flowscript.Stmt, error) {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	out := make([]flowscript.Stmt, 0, len(ops))
	for _, op := range ops {
		ex := func(tool string, input any) flowscript.Stmt {
			return flowscript.Stmt{Op: "execute", ID: op.ID, Tool: tool, Input: raw(input), OnError: flowscript.OnErrorContinue}
		}
		var st flowscript.Stmt
		switch op.Kind {
		case OpStep:
			st = ex("echo", op.ID+"-out")
		case OpAtMostOnce:
			st = ex("once", op.ID+"-out")
		case OpFail:
			st = ex("fail-untyped", map[string]any{"message": errUntyped.Error()})
		case OpTyped:
			st = ex("fail-typed", map[string]any{"channel": "declined", "payload": map[string]any{"step": op.ID}})
			st.Errors = []string{"declined"}
		case OpTimeout:
			st = ex("slow", map[string]any{"ms": 600000})
			st.TimeoutMs = 1
		case OpCancel:
			st = ex("cancelled", nil)
		case OpEffectEmit:
			st = ex("emit-from-effect", map[string]any{"eventType": EmitType, "payload": effectEmitPayload(op.Content), "value": op.ID + "-out"})
		case OpDecide:
			st = flowscript.Stmt{Op: "decide", ID: op.ID, Choice: raw(op.ID + "-choice")}
		case OpDecideThrow:
			st = flowscript.Stmt{Op: "decide", ID: op.ID, Fails: true, OnError: flowscript.OnErrorContinue}
		case OpEmit:
			st = flowscript.Stmt{Op: "emit", EventType: EmitType, Payload: raw(emitPayload(op.Content))}
		case OpEmitFact:
			st = flowscript.Stmt{Op: "emit", EventType: manifest.DecisionRecorded, Payload: raw(factPayload(op.Content))}
		case OpSuspend:
			st = flowscript.Stmt{Op: "suspend", On: op.ID}
		case OpParallel:
			st = flowscript.Stmt{Op: "parallel"}
			for _, b := range op.Branches {
				bb, err := scriptBody(b)
				if err != nil {
					return nil, err
				}
				st.Branches = append(st.Branches, bb)
			}
		default:
			return nil, fmt.Errorf("kernelprops: op %s has no flow-script form", op)
		}
		out = append(out, st)
	}
	return out, nil
}
