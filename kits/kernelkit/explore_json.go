package kernelkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// kernel/explore's inputs that name a key twice (sent as the raw bytes the driver's start action
// holds): a kernel refuses the request or reads it as I-NET-50 lets it, the last of the repeated
// key; I-WIRE-62 fixes that reading, so the in-process run the kernel's is compared with is the
// script's with that reading of its input, and a refusal of the start is the other legal option.

// dupKeyInput is a start input naming the key "k" twice: the first value, then the last.
func dupKeyInput(first, last string) json.RawMessage {
	return json.RawMessage(`{"k":` + first + `,"k":` + last + `}`)
}

// lastKeyCase is k with its start input read as I-NET-50's reading of a repeated key (the last
// member), and whether the input names a key twice at all (k unchanged when it does not).
func lastKeyCase(k clients.Case) (clients.Case, bool) {
	i := slices.IndexFunc(k.Driver.Actions, func(a flowscript.DriverAction) bool { return a.Do == "start" })
	if i < 0 || !repeatsKey(k.Driver.Actions[i].Input) {
		return k, false
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(k.Driver.Actions[i].Input))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return k, false
	}
	b, _ := json.Marshal(v) // encoding/json keeps the last member of a repeated key
	dr := *k.Driver
	dr.Actions = slices.Clone(dr.Actions)
	dr.Actions[i].Input = b
	k.Driver = &dr
	return k, true
}

// repeatsKey reports whether some object of the JSON text raw names a key twice.
func repeatsKey(raw json.RawMessage) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var walk func() bool // reads one value; true when it repeats a key
	walk = func() bool {
		t, err := d.Token()
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			dup := false
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return dup
				}
				key, _ := kt.(string)
				dup = dup || seen[key]
				seen[key] = true
				dup = walk() || dup
			}
			_, _ = d.Token()
			return dup
		case json.Delim('['):
			dup := false
			for d.More() {
				dup = walk() || dup
			}
			_, _ = d.Token()
			return dup
		}
		return false
	}
	return walk()
}

// startRefused reports whether err is the kernel's refusal of the drive's execution.start (its
// params or its JSON): the legal option of a kernel that reads no repeated key.
func startRefused(err error) bool {
	var ce *carrier.CallError
	return errors.As(err, &ce) && ce.Method == carrier.MethodStart &&
		(ce.RPC.Code == carrier.CodeInvalidParams || ce.RPC.Code == carrier.CodeParseError || ce.RPC.Code == carrier.CodeInvalidRequest)
}
