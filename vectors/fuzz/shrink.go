package fuzz

import (
	"encoding/json"
	"math"
	"strconv"
)

// Shrink returns a smaller case for which disagree still holds, trying in turn: fold from nothing
// instead of the snapshot, drop runs of envelopes (halving the run length down to one), drop
// payload and metadata members, and replace payloads by {}. Envelopes after a dropped one have
// their integer sequences moved down, so the log stays dense. It repeats until no step helps;
// disagree(c) is assumed true and is the only thing called (it bounds its own budget).
func Shrink(c Case, disagree func(Case) bool) Case {
	for progress := true; progress; {
		progress = false
		if c.Snapshot != nil {
			var snap struct {
				Sequence int64 `json:"sequence"`
			}
			if json.Unmarshal(c.Snapshot, &snap) == nil {
				cand := Case{Profile: c.Profile, Events: shifted(c.Events, 0, -(snap.Sequence + 1))}
				if disagree(cand) {
					c, progress = cand, true
				}
			}
		}
		for size := len(c.Events) / 2; size >= 1; size /= 2 {
			for i := 0; i+size <= len(c.Events); {
				evs := append(append([]json.RawMessage{}, c.Events[:i]...), shifted(c.Events[i+size:], 0, -int64(size))...)
				cand := Case{Profile: c.Profile, Snapshot: c.Snapshot, Events: evs}
				if disagree(cand) {
					c, progress = cand, true
					continue
				}
				i++
			}
		}
		for i := range c.Events {
			for _, simpler := range simplifications(c.Events[i]) {
				evs := append([]json.RawMessage{}, c.Events...)
				evs[i] = simpler
				cand := Case{Profile: c.Profile, Snapshot: c.Snapshot, Events: evs}
				if disagree(cand) {
					c, progress = cand, true
					break
				}
			}
		}
	}
	return c
}

// shifted copies evs, adding delta to every integral sequence (from index from on); one spelled
// with a fraction (3.0) stays so spelled.
func shifted(evs []json.RawMessage, from int, delta int64) []json.RawMessage {
	out := append([]json.RawMessage{}, evs...)
	if delta == 0 {
		return out
	}
	for i := from; i < len(out); i++ {
		env, ok := members(out[i])
		if !ok {
			continue
		}
		seq := string(env["sequence"])
		if n, err := strconv.ParseInt(seq, 10, 64); err == nil {
			env["sequence"] = json.RawMessage(strconv.FormatInt(n+delta, 10))
		} else if x, err := strconv.ParseFloat(seq, 64); err == nil && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			env["sequence"] = json.RawMessage(strconv.FormatInt(int64(x)+delta, 10) + ".0") // keep it spelled as a fraction
		} else {
			continue
		}
		out[i] = encode(env)
	}
	return out
}

// simplifications lists smaller variants of one envelope: without one payload member, payload {},
// without one metadata member, without metadata.
func simplifications(raw json.RawMessage) []json.RawMessage {
	env, ok := members(raw)
	if !ok {
		return nil
	}
	var out []json.RawMessage
	with := func(key string, val json.RawMessage) json.RawMessage {
		m := make(map[string]json.RawMessage, len(env))
		for k, v := range env {
			m[k] = v
		}
		if val == nil {
			delete(m, key)
		} else {
			m[key] = val
		}
		return encode(m)
	}
	for _, container := range []string{"payload", "metadata"} {
		obj, isObj := members(env[container])
		if !isObj {
			continue
		}
		for _, k := range sortedKeys(obj) {
			less := make(map[string]json.RawMessage, len(obj))
			for k2, v := range obj {
				if k2 != k {
					less[k2] = v
				}
			}
			out = append(out, with(container, encode(less)))
		}
	}
	if p := string(env["payload"]); p != "" && p != "{}" {
		out = append(out, with("payload", json.RawMessage(`{}`)))
	}
	if _, has := env["metadata"]; has {
		out = append(out, with("metadata", nil))
	}
	return out
}
