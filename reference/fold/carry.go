package fold

import (
	"encoding/json"
)

// carry is a validated EXECUTION_STARTED.carry (1.23.0; quarantined since 1.25.0): what a
// continue-as-new hands its successor. It seeds _resources (and _resources.custom), _inbox and
// _quarantined. Its shape is the JSON form of those keys; a carry with any member of the wrong
// shape is ignored whole (I-FOLD-5).
type carry struct {
	valid       bool
	resources   map[string]float64
	custom      map[string]float64
	inbox       map[string]InboxCursor
	quarantined map[string][]QuarantineEntry
}

// readCarry validates raw. proto is true when a container key in it is __proto__.
func readCarry(raw []byte, withQuarantine bool) (c carry, proto bool) {
	f, ok := fields(raw, "resources", "inbox", "quarantined")
	if !ok {
		return carry{}, false
	}
	good := true
	if f[0] != nil {
		c.resources, c.custom, good, proto = readResources(f[0])
	}
	if good && !proto && f[1] != nil {
		c.inbox, good, proto = readInbox(f[1])
	}
	if good && !proto && f[2] != nil && withQuarantine {
		c.quarantined, good, proto = readQuarantined(f[2])
	}
	if proto {
		return carry{}, true
	}
	c.valid = good
	return c, false
}

// readResources reads the JSON form of _resources.
func readResources(raw []byte) (dims, custom map[string]float64, ok, proto bool) {
	ok = true
	isObj, _ := eachField(raw, func(k, v []byte) error {
		key := string(k)
		if key == "custom" {
			isObj, _ := eachField(v, func(ck, cv []byte) error {
				if string(ck) == protoKey {
					proto = true
				}
				x, good := meterValue(cv)
				if !good {
					ok = false
				}
				if custom == nil {
					custom = map[string]float64{}
				}
				custom[string(ck)] = x
				return nil
			})
			if !isObj {
				ok = false
			}
			return nil
		}
		known := false
		for _, d := range resourceDimensions {
			known = known || d == key
		}
		x, good := meterValue(v)
		if !known || !good {
			ok = false
			return nil
		}
		if dims == nil {
			dims = map[string]float64{}
		}
		dims[key] = x
		return nil
	})
	return dims, custom, ok && isObj, proto
}

// readInbox reads the JSON form of _inbox: {topic: {count, last}}.
func readInbox(raw []byte) (inbox map[string]InboxCursor, ok, proto bool) {
	ok = true
	inbox = map[string]InboxCursor{}
	isObj, _ := eachField(raw, func(k, v []byte) error {
		if string(k) == protoKey {
			proto = true
		}
		f, isObj := fields(v, "count", "last")
		n, isInt := intValue(f[0])
		last, isStr := stringValue(f[1])
		if !isObj || !isInt || n < 0 || !isStr {
			ok = false
			return nil
		}
		inbox[string(k)] = InboxCursor{Count: n, Last: last}
		return nil
	})
	return inbox, ok && isObj, proto
}

// readQuarantined reads the JSON form of _quarantined: {topic: [{messageId, state, message?}]},
// each queue of shape released? held* and at most MaxQuarantined entries.
func readQuarantined(raw []byte) (q map[string][]QuarantineEntry, ok, proto bool) {
	ok = true
	q = map[string][]QuarantineEntry{}
	isObj, _ := eachField(raw, func(k, v []byte) error {
		if string(k) == protoKey {
			proto = true
		}
		var queue []QuarantineEntry
		isArr, _ := eachElem(v, func(ev []byte) error {
			f, isObj := fields(ev, "messageId", "state", "message")
			id, isStr := stringValue(f[0])
			state, _ := stringValue(f[1])
			if !isObj || !isStr || (state != "held" && state != "released") ||
				(state == "released" && len(queue) > 0) {
				ok = false
				return nil
			}
			queue = append(queue, QuarantineEntry{MessageID: id, Released: state == "released", Message: f[2]})
			return nil
		})
		if !isArr || len(queue) == 0 || len(queue) > MaxQuarantined {
			ok = false
			return nil
		}
		q[string(k)] = queue
		return nil
	})
	return q, ok && isObj, proto
}

// intValue reads an integer of a snapshot: the envelope rule, jsonInt (I-FOLD-22).
func intValue(raw []byte) (int64, bool) {
	if raw == nil {
		return 0, false
	}
	return jsonInt(raw)
}

var _ = json.RawMessage(nil)
