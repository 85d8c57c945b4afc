package fold

import "fmt"

// InputError is malformed input: an envelope the fold cannot read, a log that is not one
// execution's dense sequence, or a snapshot that is not a State. Index is the envelope's position
// in the input (-1 when the error is not about one envelope); Field names the member at fault
// ("sequence", "payload", "metadata", "snapshot.frames.s1.status", ...).
type InputError struct {
	Index int
	Field string
	Msg   string
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

func inputErr(index int, field, format string, a ...any) *InputError {
	return &InputError{Index: index, Field: field, Msg: fmt.Sprintf(format, a...)}
}
