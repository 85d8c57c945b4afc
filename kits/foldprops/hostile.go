package foldprops

import (
	"encoding/json"
	"strings"

	"pgregory.net/rapid"
)

// Hostile mutations (GenOptions.Hostile): extreme numbers, odd Unicode and reserved keys put into
// any member of a payload or metadata, as names or values, and repeated members (I-FOLD-29,
// I-FOLD-30, I-FOLD-31). Envelopes stay well-formed: only what a handler reads is touched.

var (
	// hostileNumbers are finite numbers a double does not hold as spelled, or that read alike
	// spelled apart: below the range, negative zero, integers past 2^53, the largest doubles,
	// other spellings of small numbers.
	hostileNumbers = []string{`-0`, `-0.0`, `0e0`, `1e-400`, `-1e-400`, `5e-324`, `2.5e-324`,
		`9007199254740993`, `9007199254740992`, `-9007199254740993`, `1.7976931348623157e308`, `1e308`,
		`18446744073709551616`, `1E2`, `0.1`, `100000000000000000000000`, `2.0`}
	// beyondRange are numbers JSON.parse reads as ±Infinity (I-FOLD-29).
	beyondRange = []string{`1e400`, `-1e400`, `1.8e308`, `-2E+308`}
	// hostileStrings are strings a fold compares, sorts, escapes or uses as names: lone and paired
	// surrogates, separators, a BOM, NUL, combining marks, and reserved names, some of them
	// spelled with escapes (\u005f_proto__ is __proto__).
	hostileStrings = []string{`"\ud800"`, `"\udfff"`, `"a\ud800b"`, `"\ud83d\ude00"`, `"😀"`, `"\u2028\u2029"`, `"\ufeff"`,
		`"\u0000"`, `"e\u0301"`, `"\uffff"`, `"｡"`, `""`, `"__proto__"`, `"\u005f_proto__"`, `"__loom_indoubt__"`,
		`"__loom_diverged__"`, `"__loom_x__"`, `"_input"`, `"_resources"`, `"constructor"`, `"step\u0049d"`}
	// hostileShapes are values of the shapes the fold reads, holding reserved keys and extremes,
	// and a deep nesting.
	hostileShapes = []string{`{}`, `[]`, `null`, `true`, `{"__proto__":1}`, `{"\u005f_proto__":{"count":1,"last":"m"}}`,
		`[{"waitId":"__proto__"}]`, `[{"waitId":"\ud800"},{"waitId":"\ud800"}]`, `[7,{"waitId":2},{"waitId":"w"}]`, `{"tokens":1e400,"custom":{"__proto__":1}}`,
		`{"count":1e400,"last":"\ud800"}`, `[{"messageId":"\ud800","state":"held"}]`, `{"t":{"count":-0,"last":""}}`,
		`{"resources":{"tokens":-0,"custom":{"\ud800":5e-324}},"inbox":{"__loom_x__":{"count":9007199254740991,"last":"m"}}}`,
		strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200)}
	// hostileKeys are member names: reserved ones, escaped spellings of names the fold reads, odd Unicode.
	hostileKeys = []string{`"__proto__"`, `"\u005f_proto__"`, `"_inbox"`, `"__loom_x__"`, `"constructor"`, `""`,
		`"\ud800"`, `"😀"`, `"\u2028"`, `"step\u0049d"`, `"e\u0301"`, `"é"`, `"\u0074opic"`}
	// readKeys are the members the fold reads anywhere in a payload or metadata.
	readKeys = []string{"stepId", "attempt", "input", "output", "error", "channel", "payload", "id", "choice",
		"context", "policy", "innerSteps", "on", "timeout", "wakeAt", "correlationKey", "condition", "waits", "waitId",
		"answer", "topic", "messageId", "message", "operator", "auto", "deliver", "scopeId", "continuedTo",
		"migratedInput", "toCodeHash", "codeHash", "principal", "parent", "chain", "carry", "resources", "inbox",
		"quarantined", "custom", "count", "last", "state", "tokens", "costUsd", "ms", "memBytes", "wallMs", "netBytes",
		"flowEmit", "kernel", "forkChain", "forkedBy"}
)

// hostileValue is a hostile number, string or structure, kept as written. In place of a number
// it is mostly a number: beyond the double range one time in three.
func hostileValue(t *rapid.T, old *jnode) *jnode {
	sets := [][]string{beyondRange, hostileNumbers, hostileStrings, hostileShapes}
	kind := rapid.IntRange(0, 3).Draw(t, "hostileKind")
	if old != nil && old.kind == 0 && isNumberText(old.raw) && rapid.IntRange(0, 3).Draw(t, "keepNumber") > 0 {
		kind = 1
		if rapid.IntRange(0, 2).Draw(t, "beyondRange") == 0 {
			kind = 0
		}
	}
	return &jnode{raw: rapid.SampledFrom(sets[kind]).Draw(t, "hostileValue")}
}

func isNumberText(raw string) bool {
	return raw != "" && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

func hostileKey(t *rapid.T) string {
	if rapid.Bool().Draw(t, "readKey") {
		b, _ := json.Marshal(rapid.SampledFrom(readKeys).Draw(t, "key"))
		return string(b)
	}
	return rapid.SampledFrom(hostileKeys).Draw(t, "hostileKey")
}

// mutate applies one hostile edit to the tree under root. root itself is replaced only when
// replaceRoot is set (a payload may be any value; metadata must stay an object).
func mutate(t *rapid.T, root *jnode, replaceRoot bool) *jnode {
	all := root.nodes(nil)
	var objs []*jnode
	for _, n := range all {
		if n.kind == '{' {
			objs = append(objs, n)
		}
	}
	op := rapid.IntRange(0, 3).Draw(t, "hostileOp")
	if len(objs) == 0 {
		op = 0
	}
	switch op {
	case 0: // a value becomes hostile
		i := rapid.IntRange(0, len(all)-1).Draw(t, "hostileAt")
		if i == 0 {
			if !replaceRoot {
				return root
			}
			return hostileValue(t, root)
		}
		for _, n := range all {
			for j, k := range n.kids {
				if k == all[i] {
					n.kids[j] = hostileValue(t, k)
				}
			}
		}
	case 1: // a member gets a hostile name
		o := rapid.SampledFrom(objs).Draw(t, "hostileObject")
		if len(o.keys) > 0 {
			o.keys[rapid.IntRange(0, len(o.keys)-1).Draw(t, "renamed")] = hostileKey(t)
		}
	case 2: // a member is added: a name the fold reads or a hostile one, a hostile value
		o := rapid.SampledFrom(objs).Draw(t, "hostileObject")
		o.keys = append(o.keys, hostileKey(t))
		o.kids = append(o.kids, hostileValue(t, nil))
	default: // a member is repeated with a hostile value, before it (it still wins) or after it
		o := rapid.SampledFrom(objs).Draw(t, "hostileObject")
		if len(o.keys) == 0 {
			break
		}
		j := rapid.IntRange(0, len(o.keys)-1).Draw(t, "repeated")
		at := j + rapid.IntRange(0, 1).Draw(t, "repeatAfter")
		o.keys = append(o.keys[:at], append([]string{o.keys[j]}, o.keys[at:]...)...)
		o.kids = append(o.kids[:at], append([]*jnode{hostileValue(t, o.kids[j])}, o.kids[at:]...)...)
	}
	return root
}

// hostile edits one envelope's payload or metadata, now and then twice.
func (b *builder) hostile(payload json.RawMessage, meta json.RawMessage) (json.RawMessage, json.RawMessage) {
	t := b.t
	for range rapid.IntRange(1, 2).Draw(t, "hostileEdits") {
		if rapid.IntRange(0, 3).Draw(t, "hostileMeta") == 0 {
			if len(meta) == 0 {
				meta = json.RawMessage(`{}`)
			}
			meta = edit(t, meta, false)
		} else {
			payload = edit(t, payload, true)
		}
	}
	return payload, meta
}

func edit(t *rapid.T, raw json.RawMessage, replaceRoot bool) json.RawMessage {
	n, err := parseNode(raw)
	if err != nil {
		return raw
	}
	var w strings.Builder
	mutate(t, n, replaceRoot).write(&w, ",", ":")
	return json.RawMessage(w.String())
}
