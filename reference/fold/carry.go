package fold

import "errors"

// carry is a validated EXECUTION_STARTED.carry (1.23.0; quarantined since 1.25.0): what a
// continue-as-new hands its successor. It replaces _resources (the six dimensions and custom, each
// when non-empty), _inbox and _quarantined. Its shape is the JSON form of those keys; a carry with
// any member of the wrong shape is ignored whole (I-FOLD-5), and a __proto__ key in any of its
// objects rejects the envelope before any member is judged (I-FOLD-30).
type carry struct {
	valid       bool
	resources   map[string]float64
	custom      map[string]float64
	inbox       map[string]InboxCursor
	quarantined map[string][]QuarantineEntry
}

// readCarry validates raw. proto is true when a key of one of its objects is __proto__.
func readCarry(raw []byte, withQuarantine bool) (c carry, proto bool) {
	f, ok := fields(raw, "resources", "inbox", "quarantined")
	if !ok {
		return carry{}, false
	}
	if !withQuarantine {
		f[2] = nil // before 1.25.0 quarantined is no carry member: not read at all
	}
	if resourcesProto(f[0]) || hasProtoKey(f[1]) || hasProtoKey(f[2]) {
		return carry{}, true
	}
	good := true
	if f[0] != nil {
		c.resources, c.custom, good = readResources(f[0])
	}
	if good && f[1] != nil {
		c.inbox, good = readInbox(f[1])
	}
	if good && f[2] != nil {
		c.quarantined, good = readQuarantined(f[2])
	}
	c.valid = good
	return c, false
}

// resourcesProto reports whether the JSON form of _resources has a __proto__ key, as a dimension
// or as a custom name.
func resourcesProto(raw []byte) bool {
	f, _ := fields(raw, "custom")
	return hasProtoKey(raw) || hasProtoKey(f[0])
}

// readResources reads the JSON form of _resources: known dimensions and custom names, each a
// finite number >= 0. dims or custom is nil when it has no entry.
func readResources(raw []byte) (dims, custom map[string]float64, ok bool) {
	ms, isObj := objectMembers(raw)
	if !isObj {
		return nil, nil, false
	}
	for _, m := range ms {
		if m.key == "custom" {
			cs, isObj := objectMembers(m.val)
			if !isObj {
				return nil, nil, false
			}
			for _, c := range cs {
				x, good := meterValue(c.val)
				if !good {
					return nil, nil, false
				}
				if custom == nil {
					custom = make(map[string]float64, len(cs))
				}
				custom[c.key] = x
			}
			continue
		}
		x, good := meterValue(m.val)
		if !good || !isDimension(m.key) {
			return nil, nil, false
		}
		if dims == nil {
			dims = map[string]float64{}
		}
		dims[m.key] = x
	}
	return dims, custom, true
}

func isDimension(key string) bool {
	for _, d := range resourceDimensions {
		if d == key {
			return true
		}
	}
	return false
}

// readInbox reads the JSON form of _inbox: {topic: {count, last}}, count an integer >= 0 and no
// other member (only the shape the fold prints is read, I-FOLD-5, I-FOLD-24).
func readInbox(raw []byte) (map[string]InboxCursor, bool) {
	ms, isObj := objectMembers(raw)
	if !isObj {
		return nil, false
	}
	inbox := make(map[string]InboxCursor, len(ms))
	for _, m := range ms {
		f, isObj := fields(m.val, "count", "last")
		n, isInt := intValue(f[0])
		last, isStr := stringValue(f[1])
		if !isObj || !isInt || n < 0 || !isStr || !onlyMembers(m.val, "count", "last") {
			return nil, false
		}
		inbox[m.key] = InboxCursor{Count: n, Last: last}
	}
	return inbox, true
}

// readQuarantined reads the JSON form of _quarantined: {topic: [{messageId, state, message?}]}, no
// other member in an entry, each queue of shape released? held*, non-empty and at most
// MaxQuarantined entries.
func readQuarantined(raw []byte) (map[string][]QuarantineEntry, bool) {
	ms, isObj := objectMembers(raw)
	if !isObj {
		return nil, false
	}
	q := make(map[string][]QuarantineEntry, len(ms))
	for _, m := range ms {
		var queue []QuarantineEntry
		good := true
		isArr, _ := eachElem(m.val, func(ev []byte) error {
			f, isObj := fields(ev, "messageId", "state", "message")
			id, isStr := stringValue(f[0])
			state, _ := stringValue(f[1])
			if !isObj || !isStr || (state != "held" && state != "released") || !onlyMembers(ev, "messageId", "state", "message") ||
				(state == "released" && len(queue) > 0) || len(queue) == MaxQuarantined {
				good = false
				return errBadEntry
			}
			queue = append(queue, QuarantineEntry{MessageID: id, Released: state == "released", Message: f[2]})
			return nil
		})
		if !isArr || !good || len(queue) == 0 {
			return nil, false
		}
		q[m.key] = queue
	}
	return q, true
}

// onlyMembers reports whether the object raw has no member but names (a repeated key counts once,
// I-FOLD-31).
func onlyMembers(raw []byte, names ...string) bool {
	ms, _ := objectMembers(raw)
	for _, m := range ms {
		known := false
		for _, n := range names {
			known = known || m.key == n
		}
		if !known {
			return false
		}
	}
	return true
}

// errBadEntry stops a scan at the first entry of the wrong shape.
var errBadEntry = errors.New("entry of the wrong shape")

// intValue reads an integer of a snapshot: the envelope rule, jsonInt (I-FOLD-22).
func intValue(raw []byte) (int64, bool) {
	if raw == nil {
		return 0, false
	}
	return jsonInt(raw)
}
