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

// Generate builds the case of one seed: a foldprops log of profile p (one in three hostile:
// extreme numbers, odd Unicode, reserved keys and repeated members in any payload or metadata
// member, foldprops.GenOptions.Hostile), then, each with its own probability, cut into a snapshot
// plus tail (the snapshot now and then made hostile or malformed itself) and given one malformed
// envelope. It is deterministic in (seed, p).
func Generate(seed uint64, p fold.Profile) Case {
	r := rand.New(rand.NewPCG(seed, 0x10f0))
	o := foldprops.GenOptions{Profile: p, MaxActions: 1 + r.IntN(16), Unusual: r.IntN(2) == 0, Hostile: r.IntN(3) == 0}
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
				if r.IntN(2) == 0 {
					c.Snapshot = hostileSnapshot(r, c.Snapshot)
				}
			}
		}
	}
	if r.IntN(5) == 0 && len(c.Events) > 0 {
		i := r.IntN(len(c.Events))
		c.Events[i] = malformed(r, c.Events[i])
	}
	return c
}

// hostileSnapshot changes one member of a printed state into a value a snapshot reader must
// refuse, or one it must read as the fold would print it (I-FOLD-16, I-FOLD-24, I-FOLD-29,
// I-FOLD-31): extremes where the fold keeps numbers, __proto__ where it uses keys as names,
// shapes it never writes, an unknown or a missing top-level key, a repeated key.
func hostileSnapshot(r *rand.Rand, raw json.RawMessage) json.RawMessage {
	st, ok := members(raw)
	if !ok {
		return raw
	}
	vars, _ := members(st["variables"])
	frames, _ := members(st["frames"])
	setVars := false // whether a case changed vars, to be written back
	pick := func(vs ...string) json.RawMessage { return json.RawMessage(vs[r.IntN(len(vs))]) }
	switch r.IntN(11) {
	case 0: // a frame's attempt, or a new frame
		if len(frames) == 0 || r.IntN(3) == 0 {
			frames["s"] = json.RawMessage(`{"attempt":1,"status":"running","stepId":"s"}`)
		}
		id := sortedKeys(frames)[r.IntN(len(frames))]
		fr, _ := members(frames[id])
		fr[[]string{"attempt", "status", "stepId"}[r.IntN(3)]] = pick(`1e400`, `-0`, `null`, `"1"`, `5e-324`, `"weird"`, `"__proto__"`)
		frames[id] = encode(fr)
		st["frames"] = encode(frames)
	case 1: // a __proto__ key where the fold uses names
		where := []string{"frames", "variables", "_flowEmits", "_decisions", "_inbox", "_waits", "_waitAnswers", "_scopes", "_resources", "_quarantined"}[r.IntN(10)]
		switch where {
		case "frames":
			frames["__proto__"] = json.RawMessage(`{"attempt":1,"status":"running","stepId":"__proto__"}`)
			st["frames"] = encode(frames)
		case "variables":
			vars["__proto__"], setVars = json.RawMessage(`1`), true
		default:
			m, _ := members(vars[where])
			if m == nil {
				m = map[string]json.RawMessage{}
			}
			m["__proto__"] = json.RawMessage(`{}`)
			vars[where], setVars = encode(m), true
		}
	case 2: // a reserved variable of a shape the fold never writes
		k := []string{"_resources", "_inbox", "_quarantined", "_flowEmits", "_decisions", "_failedWhileParked", "_suspendedOn", "_waits", "_resumePayloads", "_lifecycle"}[r.IntN(10)]
		setVars = true
		vars[k] = pick(`1`, `null`, `{}`, `[]`, `false`, `{"tokens":1e400}`, `{"t":{"count":-1,"last":"m"}}`, `{"t":[]}`, `{"d":9007199254740992}`, `{"d":{"seq":-1}}`, `{"tokens":-0,"custom":{"\ud800":5e-324}}`)
	case 3: // sequence, startedAt or updatedAt
		st[[]string{"sequence", "startedAt", "updatedAt"}[r.IntN(3)]] = pick(`1e400`, `-2`, `1.5`, `9007199254740992`, `"0"`, `null`, `-0`, `1e-400`)
	case 4: // status
		st["status"] = pick(`"weird"`, `null`, `"continued"`, `"pending"`)
	case 5: // an unknown top-level key, or a missing one
		if r.IntN(2) == 0 {
			st["extra"] = json.RawMessage(`1`)
		} else {
			delete(st, sortedKeys(st)[r.IntN(len(st))])
		}
	case 6: // a user variable holding extremes
		vars[[]string{"x", "__loom_x__", "\u2028", ""}[r.IntN(4)]] = pick(`1e400`, `-0`, `{"__proto__":1}`, `"\ud800"`)
		setVars = true
	case 7: // not an object at all
		return pick(`[]`, `null`, `"state"`, `{}`)
	case 9: // a container of the wrong shape, or a member the fold does not write (kept verbatim)
		switch r.IntN(4) {
		case 0:
			st[[]string{"frames", "variables"}[r.IntN(2)]] = pick(`[]`, `7`, `null`)
		case 1:
			frames["s"] = pick(`7`, `{"attempt":1,"status":"running","stepId":"s","note":{"__proto__":1e400}}`)
			st["frames"] = encode(frames)
		case 2:
			vars["_decisions"], setVars = pick(`{"d":{"choice":1,"seq":0,"note":1}}`, `{"d":7}`, `{"d":{"choice":1,"seq":1.5}}`), true
		default:
			vars[[]string{"_suspendedOn", "_waits", "_flowEmits", "_resources"}[r.IntN(4)]] = pick(`{}`, `[]`, `{"__proto__":1}`, `{"d":-1}`, `7`)
			setVars = true
		}
	case 10: // a frame member of an odd shape that reads back verbatim
		frames["\u2028"] = json.RawMessage(`{"attempt":-0,"status":"completed","stepId":"\u2028","output":1e400}`)
		st["frames"] = encode(frames)
	default: // a repeated key: an invalid value before the valid one (which wins, I-FOLD-31)
		return json.RawMessage(`{"status":"weird","frames":7,` + string(raw[1:]))
	}
	if setVars && vars != nil {
		st["variables"] = encode(vars)
	}
	return encode(st)
}

// malformed breaks one envelope member (or the whole envelope) in one of the ways I-FOLD-22 and
// I-FOLD-23 rule on: missing, null, the wrong type, an integral spelling, another execution, a
// sequence gap; or respells it without breaking it: a string member with an escape, a member the
// fold does not read, a repeated member whose first value is wrong (I-FOLD-31).
func malformed(r *rand.Rand, raw json.RawMessage) json.RawMessage {
	env, ok := members(raw)
	if !ok {
		return raw
	}
	names := []string{"id", "workflowId", "executionId", "eventType", "sequence", "timestamp", "payload", "metadata"}
	name := names[r.IntN(len(names))]
	wrong := []string{`null`, `"7"`, `true`, `{}`, `[]`, `1.5`, `7`}
	switch op := r.IntN(7); {
	case op == 6:
		switch r.IntN(3) {
		case 0: // the same value, spelled with an escape
			if v, isStr := env[name]; isStr && len(v) > 2 && v[0] == '"' && v[1] >= 'A' && v[1] <= 'z' {
				env[name] = json.RawMessage(`"\u00` + strconv.FormatInt(int64(v[1]), 16) + string(v[2:]))
			}
		case 1: // a member the fold ignores
			env["extra"] = json.RawMessage(`{"__proto__":1}`)
		default: // repeated: a wrong first value, then the right one, which wins
			return json.RawMessage(`{"` + name + `":` + wrong[r.IntN(len(wrong))] + `,` + string(encode(env)[1:]))
		}
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
