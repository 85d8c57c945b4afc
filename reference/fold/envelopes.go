package fold

import (
	"bytes"

	"github.com/loom-kernel/loom-conform/spi"
)

// The envelope decoder is one set of rules (DESIGN §3.1, docs/events.md "Envelopes", I-FOLD-22,
// I-FOLD-23) behind every entry point that reads envelopes from JSON: `loom-conform fold`
// (FoldReader), the vectors protocol (FoldBytes), the store bridge and the wire carrier
// (Envelopes, DecodeEnvelope). An envelope is an object with string id, workflowId, executionId
// and eventType, an integer sequence >= 0 and an integer timestamp (integers as jsonInt reads
// them: 0.0 is 0), a payload (any JSON value) and a metadata member that is absent, null or an
// object; other members are ignored. A member that is missing, null or of the wrong type is an
// *InputError of kind KindInvalidEnvelope, worded "envelope <i>: <member>: missing" or
// "envelope <i>: <member>: want <what>, got <value>".

// DecodeEnvelope decodes the single envelope object raw (white space around it allowed) as
// envelope number index of its log. Payload and metadata are sub-slices of raw.
func DecodeEnvelope(index int, raw []byte) (spi.Envelope, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		v := trimRaw(raw)
		return spi.Envelope{}, inputErr(index, "", "want an envelope object, got %s", describe(v))
	}
	var d decoder
	e, end, err := d.envelope(index, raw, i)
	if err != nil {
		return spi.Envelope{}, err
	}
	if skipSpace(raw, end) != len(raw) {
		return spi.Envelope{}, inputErr(index, "", "%v", syntaxErr(end-i, "trailing data after the envelope"))
	}
	if end-i > MaxEnvelopeBytes {
		return spi.Envelope{}, inputErr(index, "", "envelope larger than %d bytes", MaxEnvelopeBytes)
	}
	return e, nil
}

// Envelopes is a JSON array of envelopes that decodes with the fold's envelope decoder, for
// protocol messages that carry envelopes (the store bridge, the wire carrier): a field of this
// type refuses exactly what `loom-conform fold` refuses, with the same messages. It encodes as a
// plain array. A null decodes as nil; an empty array as an empty, non-nil slice.
type Envelopes []spi.Envelope

// UnmarshalJSON implements json.Unmarshaler. The envelopes own a copy of b.
func (l *Envelopes) UnmarshalJSON(b []byte) error {
	t := trimRaw(b)
	if isNull(t) {
		*l = nil
		return nil
	}
	if len(t) == 0 || t[0] != '[' {
		return inputErr(-1, "", "want an array of envelopes, got %s", describe(t))
	}
	evs, err := DecodeLogBytes(bytes.Clone(t))
	if err != nil {
		return err
	}
	if evs == nil {
		evs = []spi.Envelope{}
	}
	*l = evs
	return nil
}
