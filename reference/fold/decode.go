package fold

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/loom-kernel/loom-conform/spi"
)

// MaxEnvelopeBytes is the largest single envelope DecodeLog accepts by default (I-FOLD-11).
const MaxEnvelopeBytes = 16 << 20

// DecodeOptions bounds DecodeLog. Zero fields take the defaults.
type DecodeOptions struct {
	MaxEnvelopeBytes int // default MaxEnvelopeBytes
	// SizeHint is the log's length in bytes when the caller knows it (a file's size), 0 if not:
	// FoldReader sizes the state's frame table for a log that long (up to maxFramesHint frames),
	// so it does not grow by rehashing. It changes no result.
	SizeHint int64
}

// DecodeLog reads envelopes (DESIGN §3.1) from r: either one JSON array of envelopes or a stream
// of envelope objects (NDJSON; any whitespace between them). Each envelope is checked member by
// member: id, workflowId, executionId and eventType strings, sequence a non-negative integer,
// timestamp an integer, payload present, metadata absent, null or an object. Bad input is an
// *InputError naming the envelope index and field; memory stays bounded by
// MaxEnvelopeBytes per envelope and nesting by MaxDepth. Members other than these are ignored.
func DecodeLog(r io.Reader, opt DecodeOptions) ([]spi.Envelope, error) {
	var out []spi.Envelope
	err := decodeReader(r, opt, false, func(_ int, e *spi.Envelope) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeReader calls fn with each envelope of the stream, in order. folding is set for the fold:
// it leaves Envelope.ID empty (still checked to be a string), which the fold never reads, and an
// envelope of a type without a handler may lie in the read buffer instead of an allocation of
// its own (valid only during fn), as the fold keeps nothing of it.
func decodeReader(r io.Reader, opt DecodeOptions, folding bool, fn func(int, *spi.Envelope) error) error {
	if opt.MaxEnvelopeBytes <= 0 {
		opt.MaxEnvelopeBytes = MaxEnvelopeBytes
	}
	d := &logReader{r: bufio.NewReaderSize(r, readBufferSize(opt.SizeHint)), max: opt.MaxEnvelopeBytes, borrowInert: folding}
	dec := decoder{skipID: folding}
	var e spi.Envelope // reused: fn must not keep the pointer
	c, err := d.nextNonSpace()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	array := c == '['
	if array {
		d.r.Discard(1) //nolint:errcheck // peeked
		if c, err = d.nextNonSpace(); err != nil {
			return d.eofErr(0, err, "unterminated array")
		}
		if c == ']' {
			d.r.Discard(1) //nolint:errcheck // peeked
			return d.trailing(0)
		}
	}
	for i := 0; ; i++ {
		var ok bool
		if e, ok = d.buffered(i, &dec); !ok {
			raw, err := d.element(i)
			if err != nil {
				return err
			}
			var end int
			e, end, err = dec.envelope(i, raw, 0)
			if err != nil {
				return err
			}
			if skipSpace(raw, end) != len(raw) {
				return inputErr(i, "", "%v", syntaxErr(end, "trailing data after the envelope"))
			}
		}
		if err := fn(i, &e); err != nil {
			return err
		}
		c, err := d.nextNonSpace()
		if !array {
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return d.eofErr(i+1, err, "unterminated array: want ',' or ']'")
		}
		d.r.Discard(1) //nolint:errcheck // peeked
		switch c {
		case ']':
			return d.trailing(i + 1)
		case ',':
			if _, err := d.nextNonSpace(); err != nil {
				return d.eofErr(i+1, err, "unterminated array")
			}
		default:
			return inputErr(i+1, "", "want ',' or ']' between envelopes, got %q", c)
		}
	}
}

// DecodeLogBytes is DecodeLog over a byte slice, without copying it: the envelopes' payload and
// metadata are sub-slices of b, which the caller must not modify afterwards.
func DecodeLogBytes(b []byte) ([]spi.Envelope, error) {
	out := make([]spi.Envelope, 0, len(b)/256+1)
	err := decodeBytes(b, false, func(_ int, e *spi.Envelope) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// decodeBytes calls fn with each envelope of b, in order.
func decodeBytes(b []byte, skipID bool, fn func(int, *spi.Envelope) error) error {
	d := &decoder{skipID: skipID}
	var e spi.Envelope // reused: fn must not keep the pointer
	i := skipSpace(b, 0)
	if i == len(b) {
		return nil
	}
	array := b[i] == '['
	if array {
		if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
			if j := skipSpace(b, i+1); j != len(b) {
				return inputErr(0, "", "unexpected %q after the array", b[j])
			}
			return nil
		}
	}
	for idx := 0; ; idx++ {
		if i >= len(b) {
			if array {
				return inputErr(idx, "", "unterminated array")
			}
			return nil
		}
		if b[i] != '{' {
			return inputErr(idx, "", "want an envelope object, got %q", b[i])
		}
		var end int
		var err error
		e, end, err = d.envelope(idx, b, i)
		if err != nil {
			return err
		}
		if end-i > MaxEnvelopeBytes {
			return inputErr(idx, "", "envelope larger than %d bytes", MaxEnvelopeBytes)
		}
		if err := fn(idx, &e); err != nil {
			return err
		}
		i = skipSpace(b, end)
		if !array {
			continue
		}
		if i >= len(b) {
			return inputErr(idx+1, "", "unterminated array: want ',' or ']'")
		}
		switch b[i] {
		case ']':
			if j := skipSpace(b, i+1); j != len(b) {
				return inputErr(idx+1, "", "unexpected %q after the array", b[j])
			}
			return nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return inputErr(idx+1, "", "want ',' or ']' between envelopes, got %q", b[i])
		}
	}
}

// readBufferBytes is the stream decoder's read buffer: an envelope that lies whole in it is
// decoded where it lies (see buffered), one scan per byte.
const readBufferBytes = 1 << 20

// readBufferSize is the read buffer for a stream of sizeHint bytes (0: unknown): readBufferBytes,
// or just enough for the whole stream when it is known to be shorter, so folding a small log does
// not allocate and clear a megabyte. A wrong hint changes no result, only how often an envelope
// is framed across reads.
func readBufferSize(sizeHint int64) int {
	if sizeHint > 0 && sizeHint < readBufferBytes {
		return max(int(sizeHint)+1, 4096)
	}
	return readBufferBytes
}

type logReader struct {
	r           *bufio.Reader
	max         int
	scratch     []byte // the element being read
	borrowInert bool   // an envelope of a type without a handler stays in the read buffer
}

// keep copies an element into memory of its own: the state may keep sub-slices of an envelope
// (payloads it stores), and an envelope's own allocation pins only that envelope, where a shared
// buffer would pin every envelope read with it, growing memory with the log instead of the state.
func (d *logReader) keep(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	return out
}

// buffered decodes the envelope at the head of the read buffer where it lies, with the
// validating decoder's single scan, and consumes it; ok is false, and nothing is consumed, when
// the envelope is not whole in the bytes already read (once per buffer fill), larger than the
// bound or bad in any way. The caller then reads it through element and envelope, which frame it
// across reads and word every error: this path only accepts what that one accepts (the
// decoder's depth bound is the stricter of the two, and the size bound is checked here), so both
// give the same envelope. It never reads: read errors stay element's to report.
func (d *logReader) buffered(i int, dec *decoder) (spi.Envelope, bool) {
	buf, _ := d.r.Peek(d.r.Buffered())
	if len(buf) == 0 || buf[0] != '{' {
		return spi.Envelope{}, false
	}
	e, end, err := dec.envelope(i, buf, 0)
	if err != nil || end > d.max {
		return spi.Envelope{}, false
	}
	if d.borrowInert && handlers[e.EventType] == nil {
		d.r.Discard(end) //nolint:errcheck // peeked; the buffer is not read again before fn returns
		return e, true
	}
	// only payload and metadata can reach the state: copy those (one allocation), not the
	// envelope's other members, so a kept payload pins its own bytes and no more
	own := make([]byte, len(e.Payload)+len(e.Metadata))
	n := copy(own, e.Payload)
	copy(own[n:], e.Metadata)
	e.Payload = own[:n:n]
	if e.Metadata != nil {
		e.Metadata = own[n:]
	}
	d.r.Discard(end) //nolint:errcheck // peeked
	return e, true
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
// being read (the top-level key) where there is one: elementField finds it again from the bytes
// read, so the loop that frames well-formed envelopes does no more than track strings and depth.
func (d *logReader) element(i int) ([]byte, error) {
	c, err := d.nextNonSpace()
	if err != nil {
		return nil, d.eofErr(i, err, "missing envelope")
	}
	if c != '{' {
		return nil, inputErr(i, "", "want an envelope object, got %q", c)
	}
	var (
		buf   = d.scratch[:0]
		depth int
		inStr bool
	)
	fail := func(read []byte, format string, a ...any) ([]byte, error) {
		d.scratch = buf[:0]
		return nil, inputErr(i, elementField(read), format, a...)
	}
	for {
		chunk, err := d.r.Peek(max(d.r.Buffered(), 1))
		if err != nil && len(chunk) == 0 {
			if err == io.EOF {
				return fail(buf, "unexpected end of input inside the envelope")
			}
			return nil, err
		}
		j := 0
		if inStr { // a string (or its escape) continues from the previous chunk
			if len(buf) > 0 && buf[len(buf)-1] == '\\' && !escapedAtEnd(buf[:len(buf)-1]) {
				j++ // the escaped byte
			}
			if j, inStr = skipInString(chunk, j); inStr {
				goto more
			}
			j++ // past the closing quote
		}
		for ; j < len(chunk); j++ {
			switch chunk[j] {
			case '"':
				if j, inStr = skipInString(chunk, j+1); inStr {
					goto more
				}
			case '{', '[':
				depth++
				if depth > MaxDepth+1 {
					return fail(append(buf, chunk[:j]...), "nesting deeper than %d", MaxDepth)
				}
			case '}', ']':
				depth--
				if depth == 0 {
					var out []byte
					if len(buf)+j+1 > d.max {
						return fail(append(buf, chunk[:j+1]...), "envelope larger than %d bytes", d.max)
					}
					if len(buf) == 0 {
						out = d.keep(chunk[:j+1])
					} else {
						buf = append(buf, chunk[:j+1]...)
						d.scratch = buf
						out = d.keep(buf)
					}
					d.r.Discard(j + 1) //nolint:errcheck // peeked
					return out, nil
				}
			}
		}
	more:
		if len(buf)+len(chunk) > d.max {
			return fail(append(buf, chunk...), "envelope larger than %d bytes", d.max)
		}
		buf = append(buf, chunk...)
		d.r.Discard(len(chunk)) //nolint:errcheck // peeked
	}
}

// skipInString returns the index past the closing quote of the string whose body starts at b[j],
// or len(b) and true when the string continues past b.
func skipInString(b []byte, j int) (int, bool) {
	for j < len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b), true
		}
		q := j + k
		n := 0 // backslashes right before the quote, inside the part of the string in b
		for p := q - 1; p >= j && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q, false
		}
		j = q + 1
	}
	return len(b), true
}

// escapedAtEnd reports whether the last byte of b is itself escaped: b ends in an odd run of
// backslashes inside a string.
func escapedAtEnd(b []byte) bool {
	n := 0
	for k := len(b) - 1; k >= 0 && b[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// elementField is the top-level key of the envelope prefix read at the point it ends: the last
// key whose closing quote was read (the member being read when the envelope went wrong).
func elementField(read []byte) string {
	var (
		depth    int
		inStr    bool
		esc      bool
		keyStart = -1
		expKey   bool
		field    string
	)
	for j, ch := range read {
		if inStr {
			switch {
			case esc:
				esc = false
			case ch == '\\':
				esc = true
			case ch == '"':
				inStr = false
				if keyStart >= 0 {
					if k, ok := stringValue(read[keyStart : j+1]); ok {
						field = k
					}
					keyStart, expKey = -1, false
				}
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
			if depth == 1 && expKey {
				keyStart = j
			}
		case ',':
			if depth == 1 {
				expKey = true
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

// decoder decodes envelopes in one validating pass. It reuses the strings of repeated
// workflowId, executionId and eventType values.
type decoder struct {
	workflowID, executionID string
	types                   map[string]string
	skipID                  bool
}

func (d *decoder) intern(prev *string, b []byte) string {
	if string(b) == *prev {
		return *prev
	}
	*prev = string(b)
	return *prev
}

// envelope decodes the envelope object starting at b[i] == '{' and returns the index past it. A
// member is judged by its last occurrence, as JSON.parse keeps it (I-FOLD-31): a wrong value is
// held, not reported, until the envelope ends, and a later occurrence of the member replaces it.
// When several members are at fault the first in member order (id, workflowId, executionId,
// eventType, sequence, timestamp, payload, metadata) is named.
func (d *decoder) envelope(idx int, b []byte, i int) (spi.Envelope, int, error) {
	var (
		e     spi.Envelope
		seen  uint8                        // a bit per slot of envelopeMembers
		bad   *[len(envelopeMembers)]error // the held fault of each member, allocated at the first
		start = i
	)
	fault := func(slot int, format string, a ...any) {
		if bad == nil {
			bad = new([len(envelopeMembers)]error)
		}
		bad[slot] = inputErr(idx, envelopeMembers[slot], format, a...)
	}
	syntax := func(err error) (spi.Envelope, int, error) {
		var se *SyntaxError
		if errors.As(err, &se) {
			field := memberAt(b[start:], se.Offset-start)
			se = &SyntaxError{Offset: se.Offset - start, What: se.What}
			return spi.Envelope{}, 0, inputErr(idx, field, "%v", se)
		}
		return spi.Envelope{}, 0, inputErr(idx, "", "%v", err)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			if i >= len(b) || b[i] != '"' {
				return syntax(syntaxErr(i, "want an object key"))
			}
			ke, keySpecial, err := skipStringSpecial(b, i)
			if err != nil {
				return syntax(err)
			}
			key := b[i+1 : ke-1]
			i = skipSpace(b, ke)
			if i >= len(b) || b[i] != ':' {
				return syntax(syntaxErr(i, "want ':'"))
			}
			i = skipSpace(b, i+1)
			vs := i
			valSpecial := true // a string value holding an escape or a non-ASCII byte
			if i < len(b) && b[i] == '"' {
				i, valSpecial, err = skipStringSpecial(b, i)
			} else {
				i, err = skipValue(b, i, 1)
			}
			if err != nil {
				return syntax(err)
			}
			v := b[vs:i]
			if keySpecial && hasEscape(key) {
				key = appendUnescaped(nil, key)
			}
			slot := memberSlot(key)
			if slot >= 0 {
				seen |= 1 << slot
				if bad != nil {
					bad[slot] = nil // a later occurrence replaces a held fault
				}
			}
			switch slot {
			case slotID:
				if len(v) < 2 || v[0] != '"' {
					fault(slot, "want a string, got %s", describe(v))
				} else if !d.skipID {
					e.ID, _ = stringValue(v)
				}
			case slotWorkflowID, slotExecutionID, slotEventType:
				if len(v) < 2 || v[0] != '"' {
					fault(slot, "want a string, got %s", describe(v))
					break
				}
				body := v[1 : len(v)-1]
				if valSpecial && hasEscape(body) {
					body = appendUnescaped(nil, body)
				}
				switch slot {
				case slotWorkflowID:
					e.WorkflowID = d.intern(&d.workflowID, body)
				case slotExecutionID:
					e.ExecutionID = d.intern(&d.executionID, body)
				default:
					t, ok := d.types[string(body)]
					if !ok {
						if d.types == nil {
							d.types = map[string]string{}
						}
						t = string(body)
						if len(d.types) < 1024 {
							d.types[t] = t
						}
					}
					e.EventType = t
				}
			case slotSequence:
				n, ok := jsonInt(v)
				if !ok || n < 0 {
					fault(slot, "want a non-negative integer, got %s", describe(v))
				}
				e.Sequence = n
			case slotTimestamp:
				n, ok := jsonInt(v)
				if !ok {
					fault(slot, "want an integer (epoch milliseconds), got %s", describe(v))
				}
				e.Timestamp = n
			case slotPayload:
				e.Payload = v[:len(v):len(v)]
			case slotMetadata:
				switch {
				case isNull(v):
					e.Metadata = nil
				case isObject(v):
					e.Metadata = v[:len(v):len(v)]
				default:
					fault(slot, "want an object, got %s", describe(v))
				}
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return syntax(syntaxErr(i, "unterminated envelope object"))
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return syntax(syntaxErr(i, "want ',' or '}'"))
			}
			i = skipSpace(b, i+1)
		}
	}
	if seen|1<<slotMetadata != 1<<len(envelopeMembers)-1 || bad != nil {
		for slot, name := range envelopeMembers {
			switch {
			case bad != nil && bad[slot] != nil:
				return spi.Envelope{}, 0, bad[slot]
			case seen&(1<<slot) == 0 && slot != slotMetadata:
				return spi.Envelope{}, 0, inputErr(idx, name, "missing")
			}
		}
	}
	return e, i, nil
}

// envelopeMembers are the envelope members the decoder reads, in the order it judges them; the
// slot constants index them.
var envelopeMembers = [...]string{"id", "workflowId", "executionId", "eventType", "sequence", "timestamp", "payload", "metadata"}

const (
	slotID = iota
	slotWorkflowID
	slotExecutionID
	slotEventType
	slotSequence
	slotTimestamp
	slotPayload
	slotMetadata
)

// memberSlot is the slot of key in envelopeMembers, or -1.
func memberSlot(key []byte) int {
	switch string(key) {
	case "id":
		return slotID
	case "workflowId":
		return slotWorkflowID
	case "executionId":
		return slotExecutionID
	case "eventType":
		return slotEventType
	case "sequence":
		return slotSequence
	case "timestamp":
		return slotTimestamp
	case "payload":
		return slotPayload
	case "metadata":
		return slotMetadata
	}
	return -1
}

// jsonInt reads an integer the way every envelope and snapshot reader of the project does
// (I-FOLD-22): a JSON number whose value is a whole number in JavaScript's safe range
// (|n| <= 2^53-1), whatever its spelling: 0.0, 1e2 and -0 are integers, 1.5, 1e400 and 2^53 are not.
func jsonInt(v []byte) (int64, bool) {
	if len(v) > 0 && len(v) <= 15 { // plain digits: exact, within the safe range
		var n int64
		k := 0
		for ; k < len(v) && v[k] >= '0' && v[k] <= '9'; k++ {
			n = n*10 + int64(v[k]-'0')
		}
		if k == len(v) && (v[0] != '0' || len(v) == 1) {
			return n, true
		}
	}
	t := trimRaw(v)
	if len(t) == 0 || !isNumber(t) {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
		return n, n >= -maxSafeInt && n <= maxSafeInt
	}
	x, err := strconv.ParseFloat(string(t), 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > maxSafeInt {
		return 0, false
	}
	return int64(x), true
}

// maxSafeInt is Number.MAX_SAFE_INTEGER, 2^53-1.
const maxSafeInt = 1<<53 - 1

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
