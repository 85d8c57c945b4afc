// Package jsonstrict checks a JSON text the way a server facing a network must before it decodes
// it: RFC 8259 grammar, every string valid UTF-8, no object with a key twice, nesting no deeper
// than a limit, and — where asked — every number one an IEEE double holds exactly. It makes one
// pass, in time linear in the input whatever its nesting (no recursion), and its error names the
// field at fault as a path ("params.events[0].payload.name") with what was wrong.
//
// encoding/json, which decodes after the check, replaces invalid UTF-8 with U+FFFD and keeps the
// last of two equal keys: two different requests would then mean one thing, silently. The check
// refuses them instead.
//
//	if err := jsonstrict.Check(body, jsonstrict.Options{}); err != nil {
//		var e *jsonstrict.Error
//		errors.As(err, &e) // e.Kind, e.Path, e.Reason
//	}
package jsonstrict
