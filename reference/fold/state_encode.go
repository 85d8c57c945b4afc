package fold

import (
	"encoding/json"
	"slices"
)

// AppendState appends the canonical JSON of s (DESIGN §3.2, §3.3) to dst: the bytes MarshalJSON
// returns, written straight from the typed state without building an intermediate tree. Object
// keys are sorted by UTF-16 code units; raw JSON values already in canonical form are copied, any
// other is transcoded. On error dst is returned unchanged.
func AppendState(dst []byte, s State) ([]byte, error) {
	out, err := appendState(dst, &s)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// The member names of the objects the state encoder writes, in canonical (UTF-16) order.
// Depths: the state is depth 0, its members 1, a frame 2, a frame's members 3.
func appendState(dst []byte, s *State) ([]byte, error) {
	var err error
	ids, size := sortedFrameIDs(s.Frames)
	dst = slices.Grow(dst, size+stateSizeEstimate(&s.Variables))
	dst = append(dst, `{"frames":{`...)
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, id)
		dst = append(dst, ':')
		if dst, err = appendFrame(dst, s.Frames[id]); err != nil {
			return dst, err
		}
	}
	dst = append(dst, `},"sequence":`...)
	dst = appendNumber(dst, float64(s.Sequence))
	dst = append(dst, `,"startedAt":`...)
	dst = appendNullInt(dst, s.StartedAt)
	dst = append(dst, `,"status":`...)
	status := s.Status
	if status == "" {
		status = StatusPending
	}
	dst = appendQuoted(dst, status)
	dst = append(dst, `,"updatedAt":`...)
	dst = appendNullInt(dst, s.UpdatedAt)
	dst = append(dst, `,"variables":`...)
	if dst, err = appendVariables(dst, &s.Variables); err != nil {
		return dst, err
	}
	return append(dst, '}'), nil
}

// sortedFrameIDs returns the frames' keys in canonical order and an estimate of the frames'
// encoded size, read in the one pass over the map that collects the keys.
func sortedFrameIDs(m map[string]Frame) ([]string, int) {
	ids := make([]string, 0, len(m))
	size := 16
	for id, fr := range m {
		ids = append(ids, id)
		size += 2*len(id) + len(fr.Attempt) + len(fr.Error) + len(fr.ErrorChannel) + len(fr.ErrorPayload) +
			len(fr.Input) + len(fr.Output) + len(fr.Status) + 64
	}
	sortUTF16(ids)
	return ids, size
}

// stateSizeEstimate is a rough size of the encoded variables, to size the output once.
func stateSizeEstimate(v *Variables) int {
	n := 256 + 64*(len(v.Decisions)+len(v.FlowEmits)+len(v.Values)+len(v.ResumePayloads)+len(v.Lifecycle))
	for _, x := range v.Values {
		n += len(x)
	}
	return n
}

func appendNullInt(dst []byte, n NullInt) []byte {
	if !n.Valid {
		return append(dst, "null"...)
	}
	return appendNumber(dst, float64(n.Int))
}

// appendFrame writes one frame (depth 2). A frame carrying Extra members takes the general path.
func appendFrame(dst []byte, fr Frame) ([]byte, error) {
	if len(fr.Extra) > 0 {
		return appendCanonical(dst, fr.tree(), 2)
	}
	attempt := fr.Attempt
	if attempt == nil {
		attempt = rawOne
	}
	var err error
	dst = append(dst, `{"attempt":`...)
	if dst, err = appendRawLeaf(dst, attempt, 3); err != nil {
		return dst, err
	}
	for _, m := range [...]struct {
		key string
		v   json.RawMessage
	}{
		{`,"error":`, fr.Error},
		{`,"errorChannel":`, fr.ErrorChannel},
		{`,"errorPayload":`, fr.ErrorPayload},
		{`,"input":`, fr.Input},
		{`,"output":`, fr.Output},
	} {
		if m.v == nil {
			continue
		}
		dst = append(dst, m.key...)
		if dst, err = appendRawLeaf(dst, m.v, 3); err != nil {
			return dst, err
		}
	}
	dst = append(dst, `,"status":`...)
	dst = appendQuoted(dst, fr.Status)
	dst = append(dst, `,"stepId":`...)
	dst = appendQuoted(dst, fr.StepID)
	return append(dst, '}'), nil
}

// varMember is one member of the variables object: a user or replaced value (raw), or a typed
// reserved key (typed != "").
type varMember struct {
	key   string
	raw   json.RawMessage
	typed bool
}

// appendVariables writes the variables object (depth 1, its members at depth 2), as
// Variables.tree describes it: a typed reserved field, when set, replaces a Values entry of the
// same name.
func appendVariables(dst []byte, v *Variables) ([]byte, error) {
	members := make([]varMember, 0, len(v.Values)+12)
	typed := func(key string, set bool) {
		if set {
			members = append(members, varMember{key: key, typed: true})
		}
	}
	typed(VarResumePayloads, v.ResumePayloads != nil)
	typed(VarFlowEmits, v.FlowEmits != nil)
	typed(VarDecisions, v.Decisions != nil)
	typed(VarLifecycle, v.Lifecycle != nil)
	typed(VarInbox, v.Inbox != nil)
	typed(VarWaitAnswers, v.WaitAnswers != nil)
	typed(VarScopes, v.Scopes != nil)
	typed(VarResources, v.Resources != nil || v.ResourcesCustom != nil)
	typed(VarQuarantined, v.Quarantined != nil)
	nTyped := len(members)
	for k, x := range v.Values {
		if slices.ContainsFunc(members[:nTyped], func(m varMember) bool { return m.key == k }) {
			continue
		}
		members = append(members, varMember{key: k, raw: x})
	}
	slices.SortFunc(members, func(a, b varMember) int { return compareUTF16(a.key, b.key) })
	dst = append(dst, '{')
	var err error
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, m.key)
		dst = append(dst, ':')
		if !m.typed {
			dst, err = appendRawLeaf(dst, m.raw, 2)
		} else {
			dst, err = v.appendTyped(dst, m.key)
		}
		if err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendTyped writes the typed reserved variable key at depth 2.
func (v *Variables) appendTyped(dst []byte, key string) ([]byte, error) {
	switch key {
	case VarResumePayloads:
		return appendRawList(dst, v.ResumePayloads)
	case VarLifecycle:
		return appendRawList(dst, v.Lifecycle)
	case VarFlowEmits:
		return appendObject(dst, v.FlowEmits, func(dst []byte, n int64) ([]byte, error) {
			return appendNumber(dst, float64(n)), nil
		})
	case VarDecisions:
		return appendObject(dst, v.Decisions, appendDecision)
	case VarInbox:
		return appendObject(dst, v.Inbox, func(dst []byte, c InboxCursor) ([]byte, error) {
			dst = append(dst, `{"count":`...)
			dst = appendNumber(dst, float64(c.Count))
			dst = append(dst, `,"last":`...)
			dst = appendQuoted(dst, c.Last)
			return append(dst, '}'), nil
		})
	case VarWaitAnswers:
		return appendRawMap(dst, v.WaitAnswers)
	case VarScopes:
		return appendRawMap(dst, v.Scopes)
	case VarQuarantined:
		return appendQuarantined(dst, v.Quarantined)
	}
	return appendResources(dst, v.Resources, v.ResourcesCustom)
}

// appendResources writes _resources (depth 2): the dimensions and, when set, "custom" (which
// replaces a dimension of that name).
func appendResources(dst []byte, dims, custom map[string]float64) ([]byte, error) {
	keys := make([]string, 0, len(dims)+1)
	for k := range dims {
		if k != "custom" || custom == nil {
			keys = append(keys, k)
		}
	}
	if custom != nil {
		keys = append(keys, "custom")
	}
	sortUTF16(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, k)
		dst = append(dst, ':')
		if k == "custom" && custom != nil {
			if dst, err = appendObject(dst, custom, func(dst []byte, x float64) ([]byte, error) {
				return appendCanonical(dst, x, 4)
			}); err != nil {
				return dst, err
			}
			continue
		}
		if dst, err = appendCanonical(dst, dims[k], 3); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendQuarantined writes _quarantined (depth 2): per topic, its queue of
// {message?, messageId, state} entries.
func appendQuarantined(dst []byte, q map[string][]QuarantineEntry) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	for i, topic := range sortedKeys(q) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, topic)
		dst = append(dst, ":["...)
		for j, e := range q[topic] {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '{')
			if e.Message != nil {
				dst = append(dst, `"message":`...)
				if dst, err = appendRawLeaf(dst, e.Message, 5); err != nil {
					return dst, err
				}
				dst = append(dst, ',')
			}
			dst = append(dst, `"messageId":`...)
			dst = appendQuoted(dst, e.MessageID)
			if e.Released {
				dst = append(dst, `,"state":"released"}`...)
			} else {
				dst = append(dst, `,"state":"held"}`...)
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// appendRawList writes a list of raw values (depth 2, elements at 3).
func appendRawList(dst []byte, l []json.RawMessage) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i, x := range l {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendRawLeaf(dst, x, 3); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendRawMap writes an object of raw values (depth 2, values at 3).
func appendRawMap(dst []byte, m map[string]json.RawMessage) ([]byte, error) {
	return appendObject(dst, m, func(dst []byte, x json.RawMessage) ([]byte, error) {
		return appendRawLeaf(dst, x, 3)
	})
}

// appendObject writes m as a JSON object, its keys in canonical (UTF-16) order, each value by val.
func appendObject[V any](dst []byte, m map[string]V, val func([]byte, V) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	for i, k := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, k)
		dst = append(dst, ':')
		if dst, err = val(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendDecision writes one _decisions entry (depth 3, members at 4).
func appendDecision(dst []byte, d Decision) ([]byte, error) {
	if len(d.Extra) > 0 {
		return appendCanonical(dst, d.tree(), 3)
	}
	dst = append(dst, '{')
	n := 0
	var err error
	for _, m := range [...]struct {
		key string
		v   json.RawMessage
	}{
		{`"choice":`, d.Choice},
		{`"context":`, d.Context},
		{`"innerSteps":`, d.InnerSteps},
		{`"policy":`, d.Policy},
	} {
		if m.v == nil {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = append(dst, m.key...)
		if dst, err = appendRawLeaf(dst, m.v, 4); err != nil {
			return dst, err
		}
	}
	if d.HasSeq {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `"seq":`...)
		dst = appendNumber(dst, float64(d.Seq))
	}
	return append(dst, '}'), nil
}
