package fold

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON prints the state in canonical JSON (DESIGN §3.2, §3.3): exactly the six top-level
// keys, object keys sorted by UTF-16 code units, numbers as JavaScript prints them.
func (s State) MarshalJSON() ([]byte, error) {
	out, err := appendState(make([]byte, 0, 1024), &s)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CanonicalState is s.MarshalJSON: the bytes two equal states share.
func CanonicalState(s State) ([]byte, error) { return s.MarshalJSON() }

// Equal reports whether two states are equal: their canonical JSON bytes are identical.
func Equal(a, b State) bool {
	x, err1 := a.MarshalJSON()
	y, err2 := b.MarshalJSON()
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func putRaw(m map[string]any, key string, v json.RawMessage) {
	if v != nil {
		m[key] = v
	}
}

func (fr Frame) tree() map[string]any {
	m := make(map[string]any, 8+len(fr.Extra))
	for k, v := range fr.Extra {
		m[k] = v
	}
	m["stepId"] = fr.StepID
	m["status"] = fr.Status
	attempt := fr.Attempt
	if attempt == nil {
		attempt = rawOne
	}
	m["attempt"] = attempt
	putRaw(m, "input", fr.Input)
	putRaw(m, "output", fr.Output)
	putRaw(m, "error", fr.Error)
	putRaw(m, "errorChannel", fr.ErrorChannel)
	putRaw(m, "errorPayload", fr.ErrorPayload)
	return m
}

func (d Decision) tree() map[string]any {
	m := make(map[string]any, 5+len(d.Extra))
	for k, v := range d.Extra {
		m[k] = v
	}
	putRaw(m, "choice", d.Choice)
	putRaw(m, "context", d.Context)
	putRaw(m, "policy", d.Policy)
	putRaw(m, "innerSteps", d.InnerSteps)
	if d.HasSeq {
		m["seq"] = d.Seq
	}
	return m
}

// typedTree returns the tree of the typed reserved key _resources or _quarantined.
func (v Variables) typedTree(key string) any {
	if key == VarResources {
		r := map[string]any{}
		for k, x := range v.Resources {
			r[k] = x
		}
		if v.ResourcesCustom != nil {
			c := make(map[string]any, len(v.ResourcesCustom))
			for k, x := range v.ResourcesCustom {
				c[k] = x
			}
			r["custom"] = c
		}
		return r
	}
	q := make(map[string]any, len(v.Quarantined))
	for topic, queue := range v.Quarantined {
		l := make([]any, len(queue))
		for i, e := range queue {
			state := "held"
			if e.Released {
				state = "released"
			}
			em := map[string]any{"messageId": e.MessageID, "state": state}
			putRaw(em, "message", e.Message)
			l[i] = em
		}
		q[topic] = l
	}
	return q
}

// UnmarshalJSON reads a state in the JSON form of DESIGN §3.2 (see ParseState).
func (s *State) UnmarshalJSON(b []byte) error {
	st, err := ParseState(b)
	if err != nil {
		return err
	}
	*s = st
	return nil
}

// snapErr is an InputError about the snapshot.
func snapErr(field, format string, a ...any) error {
	if field != "" {
		field = "snapshot." + field
	} else {
		field = "snapshot"
	}
	return &InputError{Index: -1, Field: field, Msg: fmt.Sprintf(format, a...)}
}

var (
	execStatuses  = []string{StatusPending, StatusRunning, StatusSuspended, StatusCompleted, StatusFailed, StatusCancelled, StatusContinued}
	frameStatuses = []string{FrameRunning, FrameRetrying, FrameCompleted, FrameFailed, FrameCancelled}
)

func oneOf(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// ParseState reads a state in the JSON form of DESIGN §3.2: exactly the six top-level keys, with
// the shapes the fold writes. Key order and whitespace do not matter (a store that normalises
// JSON, as PostgreSQL jsonb does, round-trips). Any other shape is an *InputError naming the
// field; a __proto__ container key is refused as the fold refuses it. The input is copied.
func ParseState(b []byte) (State, error) {
	b = bytes.Clone(b)
	if err := validJSON(b); err != nil {
		return State{}, snapErr("", "%v", err)
	}
	top := map[string][]byte{}
	isObj, _ := eachField(b, func(k, v []byte) error {
		top[string(k)] = v
		return nil
	})
	if !isObj {
		return State{}, snapErr("", "want an object")
	}
	for k := range top {
		switch k {
		case "status", "frames", "variables", "sequence", "startedAt", "updatedAt":
		default:
			return State{}, snapErr(k, "unknown top-level key (a state has exactly six)")
		}
	}
	var s State
	var ok bool
	if s.Status, ok = stringValue(top["status"]); !ok || !oneOf(s.Status, execStatuses) {
		return State{}, snapErr("status", "want one of %v", execStatuses)
	}
	if s.Sequence, ok = intValue(top["sequence"]); !ok || s.Sequence < -1 {
		return State{}, snapErr("sequence", "want an integer >= -1")
	}
	for _, t := range []struct {
		name string
		dst  *NullInt
	}{{"startedAt", &s.StartedAt}, {"updatedAt", &s.UpdatedAt}} {
		raw := top[t.name]
		if raw == nil {
			return State{}, snapErr(t.name, "missing")
		}
		if isNull(raw) {
			continue
		}
		n, ok := intValue(raw)
		if !ok {
			return State{}, snapErr(t.name, "want an integer or null")
		}
		*t.dst = NullInt{Int: n, Valid: true}
	}
	var err error
	if s.Frames, err = parseFrames(top["frames"]); err != nil {
		return State{}, err
	}
	if s.Variables, err = parseVariables(top["variables"]); err != nil {
		return State{}, err
	}
	return s, nil
}

func parseFrames(raw []byte) (map[string]Frame, error) {
	if raw == nil {
		return nil, snapErr("frames", "missing")
	}
	frames := map[string]Frame{}
	var err error
	isObj, _ := eachField(raw, func(k, v []byte) error {
		id := string(k)
		field := "frames." + id
		if id == protoKey {
			err = snapErr(field, "__proto__ is not a valid stepId")
			return err
		}
		fr := Frame{}
		isObj, _ := eachField(v, func(fk, fv []byte) error {
			switch string(fk) {
			case "stepId":
				fr.StepID, _ = stringValue(fv)
			case "status":
				fr.Status, _ = stringValue(fv)
			case "attempt":
				fr.Attempt = fv
			case "input":
				fr.Input = fv
			case "output":
				fr.Output = fv
			case "error":
				fr.Error = fv
			case "errorChannel":
				fr.ErrorChannel = fv
			case "errorPayload":
				fr.ErrorPayload = fv
			default:
				if fr.Extra == nil {
					fr.Extra = map[string]json.RawMessage{}
				}
				fr.Extra[string(fk)] = fv
			}
			return nil
		})
		switch {
		case !isObj:
			err = snapErr(field, "want an object")
		case fr.StepID != id:
			err = snapErr(field+".stepId", "want %q (the frame's key)", id)
		case !oneOf(fr.Status, frameStatuses):
			err = snapErr(field+".status", "want one of %v", frameStatuses)
		case fr.Attempt == nil || !isNumber(fr.Attempt):
			err = snapErr(field+".attempt", "want a number")
		}
		if err != nil {
			return err
		}
		frames[id] = fr
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !isObj {
		return nil, snapErr("frames", "want an object")
	}
	if len(frames) == 0 {
		return nil, nil
	}
	return frames, nil
}

func parseVariables(raw []byte) (Variables, error) {
	var v Variables
	if raw == nil {
		return v, snapErr("variables", "missing")
	}
	var err error
	isObj, _ := eachField(raw, func(k, val []byte) error {
		key := string(k)
		err = v.parseKey(key, val)
		return err
	})
	if err != nil {
		return Variables{}, err
	}
	if !isObj {
		return Variables{}, snapErr("variables", "want an object")
	}
	return v, nil
}

func (v *Variables) parseKey(key string, val []byte) error {
	field := "variables." + key
	switch key {
	case VarResumePayloads, VarLifecycle:
		l := []json.RawMessage{}
		isArr, _ := eachElem(val, func(e []byte) error {
			l = append(l, e)
			return nil
		})
		if !isArr {
			return snapErr(field, "want an array")
		}
		if key == VarResumePayloads {
			v.ResumePayloads = l
		} else {
			v.Lifecycle = l
		}
	case VarFlowEmits:
		v.FlowEmits = map[string]int64{}
		var err error
		isObj, _ := eachField(val, func(k, n []byte) error {
			c, ok := intValue(n)
			switch {
			case string(k) == protoKey:
				err = snapErr(field+"."+protoKey, "__proto__ is not a valid digest")
			case !ok || c < 0:
				err = snapErr(field+"."+string(k), "want a non-negative integer")
			}
			v.FlowEmits[string(k)] = c
			return err
		})
		if err != nil {
			return err
		}
		if !isObj {
			return snapErr(field, "want an object")
		}
	case VarDecisions:
		v.Decisions = map[string]Decision{}
		var err error
		isObj, _ := eachField(val, func(k, e []byte) error {
			id := string(k)
			if id == protoKey {
				err = snapErr(field+"."+protoKey, "__proto__ is not a valid decision id")
				return err
			}
			var d Decision
			isObj, _ := eachField(e, func(dk, dv []byte) error {
				switch string(dk) {
				case "choice":
					d.Choice = dv
				case "context":
					d.Context = dv
				case "policy":
					d.Policy = dv
				case "innerSteps":
					d.InnerSteps = dv
				case "seq":
					n, ok := intValue(dv)
					if !ok || n < 0 {
						err = snapErr(field+"."+id+".seq", "want a non-negative integer")
						return err
					}
					d.Seq, d.HasSeq = n, true
				default:
					if d.Extra == nil {
						d.Extra = map[string]json.RawMessage{}
					}
					d.Extra[string(dk)] = dv
				}
				return nil
			})
			if err == nil && !isObj {
				err = snapErr(field+"."+id, "want an object")
			}
			v.Decisions[id] = d
			return err
		})
		if err != nil {
			return err
		}
		if !isObj {
			return snapErr(field, "want an object")
		}
	case VarInbox:
		in, ok, proto := readInbox(val)
		if proto || !ok {
			return snapErr(field, "want {topic: {count, last}} without __proto__ topics")
		}
		v.Inbox = in
	case VarWaitAnswers, VarScopes:
		m := map[string]json.RawMessage{}
		proto := false
		isObj, _ := eachField(val, func(k, e []byte) error {
			proto = proto || string(k) == protoKey
			m[string(k)] = e
			return nil
		})
		if !isObj || proto {
			return snapErr(field, "want an object without a __proto__ key")
		}
		if key == VarWaitAnswers {
			v.WaitAnswers = m
		} else {
			v.Scopes = m
		}
	case VarResources:
		dims, custom, ok, proto := readResources(val)
		if !ok || proto {
			return snapErr(field, "want {dimension: non-negative number, custom?: {name: non-negative number}}")
		}
		v.Resources = dims
		if v.Resources == nil {
			v.Resources = map[string]float64{}
		}
		v.ResourcesCustom = custom
	case VarQuarantined:
		q, ok, proto := readQuarantined(val)
		if !ok || proto {
			return snapErr(field, "want {topic: [{messageId, state, message?}]} of shape released? held*, at most %d entries", MaxQuarantined)
		}
		v.Quarantined = q
	case VarSuspendedOn, VarWaits: // objects the fold writes (I-FOLD-24); _waits is keyed by wait id
		proto := false
		isObj, _ := eachField(val, func(k, _ []byte) error {
			proto = proto || string(k) == protoKey
			return nil
		})
		if !isObj || proto {
			return snapErr(field, "want an object without a __proto__ key")
		}
		v.setValue(key, val)
	case VarFailedWhileParked:
		if !isTrue(val) {
			return snapErr(field, "want true (the fold writes nothing else)")
		}
		v.setValue(key, val)
	case protoKey:
		return snapErr(field, "__proto__ is not a valid variable name")
	default:
		v.setValue(key, val)
	}
	return nil
}

func (v *Variables) setValue(key string, val []byte) {
	if v.Values == nil {
		v.Values = map[string]json.RawMessage{}
	}
	v.Values[key] = val
}
