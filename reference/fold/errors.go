package fold

import (
	"fmt"
	"strings"
)

// InputError is malformed input: an envelope the fold cannot read, a log that is not one
// execution's dense sequence, or a snapshot that is not a State. Index is the envelope's position
// in the input (-1 when the error is not about one envelope); Field names the member at fault
// ("sequence", "payload", "metadata", "snapshot.frames.s1.status", ...).
type InputError struct {
	Index int
	Field string
	Msg   string
	rule  string // the rule broken, see Kind; "" is a malformed envelope or snapshot
}

func (e *InputError) Error() string {
	switch {
	case e.Index < 0 && e.Field == "":
		return e.Msg
	case e.Index < 0:
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	case e.Field == "":
		return fmt.Sprintf("envelope %d: %s", e.Index, e.Msg)
	}
	return fmt.Sprintf("envelope %d: %s: %s", e.Index, e.Field, e.Msg)
}

// The error kinds of an InputError (docs/vectors.md §2, "error kinds"; I-FOLD-23).
const (
	KindInvalidEnvelope = "invalid-envelope" // unreadable envelope: syntax, a member missing, null or of the wrong type
	KindSequence        = "sequence"         // well-formed envelopes whose sequences are not dense
	KindMixedExecutions = "mixed-executions" // well-formed envelopes of more than one executionId
	KindInvalidSnapshot = "invalid-snapshot" // the snapshot is not a state
)

// Kind names the rule the input breaks, one of the Kind constants. A missing, null or non-integer
// sequence is an unreadable envelope (KindInvalidEnvelope); KindSequence is only about density.
func (e *InputError) Kind() string {
	switch {
	case e.rule != "":
		return e.rule
	case e.Index < 0 && strings.HasPrefix(e.Field, "snapshot"):
		return KindInvalidSnapshot
	}
	return KindInvalidEnvelope
}

func inputErr(index int, field, format string, a ...any) *InputError {
	return &InputError{Index: index, Field: field, Msg: fmt.Sprintf(format, a...)}
}
