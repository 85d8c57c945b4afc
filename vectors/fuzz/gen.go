package fuzz

import (
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Case is one fold input: a profile, an optional snapshot (written by the same profile) and the
// envelopes, kept as raw JSON so malformed ones survive.
type Case struct {
	Profile  string
	Snapshot json.RawMessage
	Events   []json.RawMessage
}

// Generate builds the case of one seed: a foldprops log of profile p, then, each with its own
// probability, cut into a snapshot plus tail, given hostile payload values, given two huge
// measurements, and given one malformed envelope. It is deterministic in (seed, p).
func Generate(seed uint64, p fold.Profile) Case {
	r := rand.New(rand.NewPCG(seed, 0x10f0))
	o := foldprops.GenOptions{Profile: p, MaxActions: 1 + r.IntN(16), Unusual: r.IntN(2) == 0}
	envs := foldprops.Log(o).Example(int(seed & (1<<62 - 1)))
	c := Case{Profile: p.Version(), Events: make([]json.RawMessage, 0, len(envs))}
	for _, e := range envs {
		b, err := json.Marshal(e)
		if err != nil { // the generator writes JSON payloads only
			panic("fuzz: generated envelope does not encode: " + err.Error())
		}
		c.Events = append(c.Events, b)
	}
	if len(c.Events) > 1 && r.IntN(4) == 0 {
		k := 1 + r.IntN(len(c.Events)-1)
		if st, err := fold.Fold(p, nil, envs[:k]); err == nil {
			if b, err := st.MarshalJSON(); err == nil {
				c.Snapshot, c.Events = b, c.Events[k:]
			}
		}
	}
	if r.IntN(3) == 0 {
		for n := 1 + r.IntN(2); n > 0 && len(c.Events) > 0; n-- {
			i := r.IntN(len(c.Events))
			c.Events[i] = hostilePayload(r, c.Events[i])
		}
	}
	if r.IntN(12) == 0 && len(c.Events) > 1 {
		for n := 2; n > 0; n-- { // two huge measurements: a sum beyond the double range (I-FOLD-21)
			i := r.IntN(len(c.Events))
			c.Events[i] = hugeMeasurement(r, c.Events[i])
		}
	}
	if r.IntN(5) == 0 && len(c.Events) > 0 {
		i := r.IntN(len(c.Events))
		c.Events[i] = malformed(r, c.Events[i])
	}
	return c
}

// hugeMeasurement turns an envelope into a RESOURCE_METERED of one huge dimension or custom value.
func hugeMeasurement(r *rand.Rand, raw json.RawMessage) json.RawMessage {
	env, ok := members(raw)
	if !ok {
		return raw
	}
	v := []string{`1e308`, `1.7976931348623157e308`, `9e307`}[r.IntN(3)]
	dims := []string{"tokens", "costUsd", "ms", "memBytes", "wallMs", "netBytes"}
	payload := `{"` + dims[r.IntN(len(dims))] + `":` + v + `}`
	if r.IntN(3) == 0 {
		payload = `{"custom":{"gpu":` + v + `}}`
	}
	env["eventType"], env["payload"] = json.RawMessage(`"RESOURCE_METERED"`), json.RawMessage(payload)
	return encode(env)
}

// hostileValues are payload values folds get wrong: doubles at and beyond the edges, integers
// beyond 2^53, -0, integral spellings, lone surrogates, line separators, __proto__, deep nesting.
var hostileValues = []string{
	`1e308`, `1.7976931348623157e308`, `-0`, `0.0`, `1e400`, `-1e400`, `5e-324`, `12345678901234567890`,
	`9007199254740993`, `2.5`, `-1`, `"\ud800"`, `"\u2028x\u2029"`, `"__proto__"`, `{"__proto__":1}`,
	`[]`, `{}`, `null`, `true`, `false`, `""`, `"😀"`, `"1"`, `{"waitId":"w","answer":null}`,
	`[{"waitId":"w"},{"waitId":2},7]`, `{"tokens":1e308,"custom":{"g":1e308}}`,
	strings.Repeat("[", 200) + strings.Repeat("]", 200),
}

// payloadKeys are members the fold reads somewhere; a hostile value lands on one of them.
var payloadKeys = []string{"stepId", "attempt", "error", "output", "input", "id", "choice", "context", "topic",
	"messageId", "operator", "auto", "deliver", "waits", "on", "carry", "wallMs", "tokens", "custom", "waitId",
	"answer", "continuedTo", "channel", "payload", "migratedInput", "scopeId", "condition"}

// hostilePayload sets one payload member (one it has, or one the fold reads) to a hostile value;
// a payload that is not an object is replaced by a hostile value.
func hostilePayload(r *rand.Rand, raw json.RawMessage) json.RawMessage {
	env, ok := members(raw)
	if !ok {
		return raw
	}
	val := json.RawMessage(hostileValues[r.IntN(len(hostileValues))])
	payload, isObj := members(env["payload"])
	switch {
	case !isObj || r.IntN(8) == 0:
		env["payload"] = val
	default:
		keys := sortedKeys(payload)
		if len(keys) == 0 || r.IntN(3) == 0 {
			payload[payloadKeys[r.IntN(len(payloadKeys))]] = val
		} else if r.IntN(5) == 0 {
			delete(payload, keys[r.IntN(len(keys))])
		} else {
			payload[keys[r.IntN(len(keys))]] = val
		}
		env["payload"] = encode(payload)
	}
	return encode(env)
}

// malformed breaks one envelope member (or the whole envelope) in one of the ways I-FOLD-22 and
// I-FOLD-23 rule on: missing, null, the wrong type, an integral spelling, another execution, a
// sequence gap.
func malformed(r *rand.Rand, raw json.RawMessage) json.RawMessage {
	env, ok := members(raw)
	if !ok {
		return raw
	}
	names := []string{"id", "workflowId", "executionId", "eventType", "sequence", "timestamp", "payload", "metadata"}
	name := names[r.IntN(len(names))]
	wrong := []string{`null`, `"7"`, `true`, `{}`, `[]`, `1.5`, `7`}
	switch op := r.IntN(6); {
	case op == 0 && r.IntN(4) == 0:
		return json.RawMessage(`7`)
	case op == 0:
		delete(env, name)
	case op == 1 && (name == "sequence" || name == "timestamp"):
		if n, err := strconv.ParseInt(string(env[name]), 10, 64); err == nil {
			spell := []string{"%d.0", "%de0", "%d.000"}[r.IntN(3)]
			env[name] = json.RawMessage(strings.Replace(spell, "%d", strconv.FormatInt(n, 10), 1))
		}
	case op == 2 && name == "sequence":
		if n, err := strconv.ParseInt(string(env[name]), 10, 64); err == nil {
			env[name] = json.RawMessage(strconv.FormatInt(n+1+int64(r.IntN(2)), 10))
		}
	case op == 2 && name == "executionId":
		env[name] = json.RawMessage(`"other-execution"`)
	case op == 3 && name == "metadata":
		env[name] = json.RawMessage([]string{`{"kernel":true}`, `{"flowEmit":"__proto__"}`, `{"kernel":"true"}`, `null`}[r.IntN(4)])
	default:
		env[name] = json.RawMessage(wrong[r.IntN(len(wrong))])
	}
	return encode(env)
}

// members reads a JSON object's members ("ok" false for anything else).
func members(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// encode writes an object's members (sorted keys; the values' spelling is kept).
func encode(m map[string]json.RawMessage) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
