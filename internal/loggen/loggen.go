package loggen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Pairs returns n envelopes of one execution as NDJSON: STEP_STARTED/STEP_COMPLETED pairs with
// small object payloads, a DECISION_RECORDED and an application event, round-robin.
func Pairs(n int) []byte {
	var b strings.Builder
	env := func(seq int, typ, payload string) {
		fmt.Fprintf(&b, `{"id":"e%d","workflowId":"wf","executionId":"x","eventType":%q,"sequence":%d,"timestamp":%d,"payload":%s}`+"\n",
			seq, typ, seq, 1_700_000_000_000+int64(seq), payload)
	}
	env(0, "EXECUTION_STARTED", `{"input":{"order":42}}`)
	for seq := 1; seq < n; seq++ {
		step := seq / 4
		switch seq % 4 {
		case 1:
			env(seq, "STEP_STARTED", fmt.Sprintf(`{"stepId":"s%d","attempt":1,"input":{"n":%d,"tag":"alpha"}}`, step, step))
		case 2:
			env(seq, "STEP_COMPLETED", fmt.Sprintf(`{"stepId":"s%d","output":{"ok":true,"n":%d}}`, step, step))
		case 3:
			env(seq, "DECISION_RECORDED", fmt.Sprintf(`{"id":"d%d","choice":"route-%d"}`, step, step%3))
		default:
			env(seq, "progress", fmt.Sprintf(`{"p":%d}`, step))
		}
	}
	return []byte(b.String())
}

// Mix returns a realistic mixed log of n envelopes of one execution as NDJSON: a start, then repeating turns of
// steps (some retried, some failing typed), decisions (some repeated), stamped and unstamped
// emits, metering, unknown types, and a park with its resume every few turns.
func Mix(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 260)
	seq := 0
	add := func(typ, payload, meta string) {
		if seq >= n {
			return
		}
		b.WriteString(`{"id":"ev-`)
		b.WriteString(strconv.Itoa(seq))
		b.WriteString(`","workflowId":"wf-bench","executionId":"exec-bench","eventType":"`)
		b.WriteString(typ)
		b.WriteString(`","sequence":`)
		b.WriteString(strconv.Itoa(seq))
		b.WriteString(`,"timestamp":`)
		b.WriteString(strconv.Itoa(1_700_000_000_000 + seq))
		b.WriteString(`,"payload":`)
		b.WriteString(payload)
		if meta != "" {
			b.WriteString(`,"metadata":`)
			b.WriteString(meta)
		}
		b.WriteString("}\n")
		seq++
	}
	add("EXECUTION_STARTED", `{"input":{"customer":"c-1","items":[1,2,3],"note":"benchmark run"},"flowId":"f","flowHash":"sha256:ab"}`, "")
	for turn := 0; seq < n; turn++ {
		id := "step-" + strconv.Itoa(turn)
		add("STEP_STARTED", `{"stepId":"`+id+`","attempt":1,"kind":"tool","toolId":"search","input":{"query":"q`+strconv.Itoa(turn)+`","limit":10}}`, "")
		if turn%7 == 0 {
			add("STEP_RETRYING", `{"stepId":"`+id+`","attempt":2,"error":"transient"}`, "")
		}
		switch {
		case turn%11 == 0:
			add("STEP_FAILED", `{"stepId":"`+id+`","error":"not found","channel":"notFound","payload":{"id":"`+id+`"}}`, "")
		default:
			add("STEP_COMPLETED", `{"stepId":"`+id+`","output":{"hits":["a","b"],"score":0.87}}`, "")
		}
		add("DECISION_RECORDED", `{"id":"route-`+strconv.Itoa(turn%50)+`","choice":"model-a","context":{"len":12},"policy":{"name":"eps","propensity":0.25}}`, "")
		add("progress", `{"turn":`+strconv.Itoa(turn)+`,"pct":0.5}`, `{"flowEmit":"`+fmt.Sprintf("%016x", turn%97)+`"}`)
		add("RESOURCE_METERED", `{"stepId":"`+id+`","tokens":120,"costUsd":0.0012,"ms":35}`, "")
		if turn%5 == 0 {
			add("custom.audit", `{"who":"bench"}`, "")
		}
		if turn%9 == 0 {
			add("EXECUTION_SUSPENDED", `{"on":"approve","timeout":60000,"wakeAt":1700000060000}`, "")
			add("EXECUTION_RESUMED", `{"approved":true,"by":"alice"}`, "")
		}
	}
	return b.Bytes()
}
