package fold

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/loom-kernel/loom-conform/spi"
)

// MaxEnvelopeBytes is the largest single envelope DecodeLog accepts by default (I-FOLD-11).
const MaxEnvelopeBytes = 16 << 20

// DecodeOptions bounds DecodeLog. Zero fields take the defaults.
type DecodeOptions struct {
	MaxEnvelopeBytes int // default MaxEnvelopeBytes
}

// DecodeLog reads envelopes (DESIGN §3.1) from r: either one JSON array of envelopes or a stream
// of envelope objects (NDJSON; any whitespace between them). Each envelope is checked member by
// member: id, workflowId, executionId and eventType strings, sequence a non-negative integer,
// timestamp an integer, payload present, metadata absent, null or an object. Bad input is an
// *InputError naming the envelope index and field; memory stays bounded by
// MaxEnvelopeBytes per envelope and nesting by MaxDepth. Members other than these are ignored.
func DecodeLog(r io.Reader, opt DecodeOptions) ([]spi.Envelope, error) {
	if opt.MaxEnvelopeBytes <= 0 {
		opt.MaxEnvelopeBytes = MaxEnvelopeBytes
	}
	d := &logReader{r: bufio.NewReaderSize(r, 64<<10), max: opt.MaxEnvelopeBytes}
	var out []spi.Envelope
	c, err := d.nextNonSpace()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	array := c == '['
	if array {
		d.r.Discard(1) //nolint:errcheck // peeked
		if c, err = d.nextNonSpace(); err != nil {
			return nil, d.eofErr(0, err, "unterminated array")
		}
		if c == ']' {
			d.r.Discard(1) //nolint:errcheck // peeked
			return nil, d.trailing(0)
		}
	}
	for i := 0; ; i++ {
		raw, err := d.element(i)
		if err != nil {
			return nil, err
		}
		e, err := decodeEnvelope(i, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		c, err := d.nextNonSpace()
		if !array {
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, d.eofErr(i+1, err, "unterminated array: want ',' or ']'")
		}
		d.r.Discard(1) //nolint:errcheck // peeked
		switch c {
		case ']':
			return out, d.trailing(i + 1)
		case ',':
			if _, err := d.nextNonSpace(); err != nil {
				return nil, d.eofErr(i+1, err, "unterminated array")
			}
		default:
			return nil, inputErr(i+1, "", "want ',' or ']' between envelopes, got %q", c)
		}
	}
}

// DecodeLogBytes is DecodeLog over a byte slice.
func DecodeLogBytes(b []byte) ([]spi.Envelope, error) {
	return DecodeLog(bytes.NewReader(b), DecodeOptions{})
}

type logReader struct {
	r   *bufio.Reader
	max int
}

func (d *logReader) eofErr(i int, err error, msg string) error {
	if err == io.EOF {
		return inputErr(i, "", "%s", msg)
	}
	return err
}

// nextNonSpace skips whitespace and peeks the next byte without consuming it.
func (d *logReader) nextNonSpace() (byte, error) {
	for {
		b, err := d.r.Peek(1)
		if err != nil {
			return 0, err
		}
		if !isSpace(b[0]) {
			return b[0], nil
		}
		d.r.Discard(1) //nolint:errcheck // peeked
	}
}

func (d *logReader) trailing(i int) error {
	if c, err := d.nextNonSpace(); err == nil {
		return inputErr(i, "", "unexpected %q after the array", c)
	} else if err != io.EOF {
		return err
	}
	return nil
}

// element reads one envelope object's bytes, bounded in size and depth. Errors name the member
// being read (the top-level key) where there is one.
func (d *logReader) element(i int) ([]byte, error) {
	c, err := d.nextNonSpace()
	if err != nil {
		return nil, d.eofErr(i, err, "missing envelope")
	}
	if c != '{' {
		return nil, inputErr(i, "", "want an envelope object, got %q", c)
	}
	var (
		buf      []byte
		depth    int
		inStr    bool
		esc      bool
		keyStart = -1 // start of the current top-level key in buf
		expKey   bool // at depth 1, the next string is a key
		field    string
	)
	for {
		chunk, err := d.r.Peek(max(d.r.Buffered(), 1))
		if err != nil && len(chunk) == 0 {
			if err == io.EOF {
				return nil, inputErr(i, field, "unexpected end of input inside the envelope")
			}
			return nil, err
		}
		for j := 0; j < len(chunk); j++ {
			ch := chunk[j]
			if inStr {
				switch {
				case esc:
					esc = false
				case ch == '\\':
					esc = true
				case ch == '"':
					inStr = false
				}
				continue
			}
			switch ch {
			case '"':
				inStr = true
				if depth == 1 && expKey {
					keyStart = len(buf) + j
				}
			case ':':
				if depth == 1 && keyStart >= 0 {
					all := append(buf, chunk[:j]...)
					if k, ok := stringValue(bytes.TrimRight(all[keyStart:], " \t\r\n")); ok {
						field = k
					}
					buf = all[:len(buf)]
					keyStart, expKey = -1, false
				}
			case ',':
				if depth == 1 {
					expKey = true
				}
			case '{', '[':
				depth++
				if depth > MaxDepth+1 {
					return nil, inputErr(i, field, "nesting deeper than %d", MaxDepth)
				}
				if depth == 1 {
					expKey = true
				}
			case '}', ']':
				depth--
				if depth == 0 {
					buf = append(buf, chunk[:j+1]...)
					d.r.Discard(j + 1) //nolint:errcheck // peeked
					if len(buf) > d.max {
						return nil, inputErr(i, field, "envelope larger than %d bytes", d.max)
					}
					return buf, nil
				}
			}
		}
		if len(buf)+len(chunk) > d.max {
			return nil, inputErr(i, field, "envelope larger than %d bytes", d.max)
		}
		buf = append(buf, chunk...)
		d.r.Discard(len(chunk)) //nolint:errcheck // peeked
	}
}

// decodeEnvelope checks and decodes one envelope object.
func decodeEnvelope(i int, raw []byte) (spi.Envelope, error) {
	if err := validJSON(raw); err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return spi.Envelope{}, inputErr(i, memberAt(raw, se.Offset), "%v", err)
		}
		return spi.Envelope{}, inputErr(i, "", "%v", err)
	}
	var (
		e    spi.Envelope
		seen [8]bool
		err  error
	)
	str := func(k string, v []byte, dst *string, slot int) {
		s, ok := stringValue(v)
		if !ok {
			err = inputErr(i, k, "want a string, got %s", describe(v))
			return
		}
		*dst, seen[slot] = s, true
	}
	eachField(raw, func(k, v []byte) error { //nolint:errcheck // validated above
		switch string(k) {
		case "id":
			str("id", v, &e.ID, 0)
		case "workflowId":
			str("workflowId", v, &e.WorkflowID, 1)
		case "executionId":
			str("executionId", v, &e.ExecutionID, 2)
		case "eventType":
			str("eventType", v, &e.EventType, 3)
		case "sequence":
			n, ok := strictInt(v)
			if !ok || n < 0 {
				err = inputErr(i, "sequence", "want a non-negative integer, got %s", describe(v))
			}
			e.Sequence, seen[4] = n, true
		case "timestamp":
			n, ok := strictInt(v)
			if !ok {
				err = inputErr(i, "timestamp", "want an integer (epoch milliseconds), got %s", describe(v))
			}
			e.Timestamp, seen[5] = n, true
		case "payload":
			e.Payload, seen[6] = v, true
		case "metadata":
			switch {
			case isNull(v):
				e.Metadata = nil
			case isObject(v):
				e.Metadata = v
			default:
				err = inputErr(i, "metadata", "want an object, got %s", describe(v))
			}
		}
		return err
	})
	if err != nil {
		return spi.Envelope{}, err
	}
	for slot, name := range []string{"id", "workflowId", "executionId", "eventType", "sequence", "timestamp", "payload"} {
		if !seen[slot] {
			return spi.Envelope{}, inputErr(i, name, "missing")
		}
	}
	return e, nil
}

// strictInt reads an integer literal (no fraction or exponent) in int64 range.
func strictInt(v []byte) (int64, bool) {
	t := trimRaw(v)
	if len(t) == 0 || !isNumber(t) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(t), 10, 64)
	return n, err == nil
}

// describe names a raw JSON value's kind for error messages.
func describe(v []byte) string {
	t := trimRaw(v)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		if len(t) > 40 {
			return "a string"
		}
		return "the string " + string(t)
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if len(t) > 40 {
		return "a number"
	}
	return "the number " + string(t)
}

// memberAt names the top-level member of the object raw whose text holds byte off ("" if none).
func memberAt(raw []byte, off int) string {
	depth, inStr, esc, expKey := 0, false, false, false
	keyStart, field := -1, ""
	for j := 0; j < len(raw) && j < off; j++ {
		c := raw[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 && expKey {
				keyStart = j
			}
		case ':':
			if depth == 1 && keyStart >= 0 {
				if k, ok := stringValue(bytes.TrimRight(raw[keyStart:j], " \t\r\n")); ok {
					field = k
				}
				keyStart, expKey = -1, false
			}
		case ',':
			if depth == 1 {
				expKey, field = true, ""
			}
		case '{', '[':
			depth++
			if depth == 1 {
				expKey = true
			}
		case '}', ']':
			depth--
		}
	}
	return field
}
