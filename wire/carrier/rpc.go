package carrier

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Request is one JSON-RPC 2.0 request of the wire ABI.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is one JSON-RPC 2.0 response: exactly one of Result and Error is set.
type Response struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      json.RawMessage  `json:"id"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *bridge.RPCError `json:"error,omitempty"`
}

// Error codes of the wire ABI. The JSON-RPC 2.0 codes and the store bridge's typed codes keep their
// meaning (fenced -32002, not found -32003, already exists -32004, invalid argument -32005,
// too large -32008); the kernel's own outcomes take -32020 and up. Every error's data carries
// {"kind", ...} naming the outcome and, for bad input, the field.
const (
	CodeParseError     = bridge.CodeParseError
	CodeInvalidRequest = bridge.CodeInvalidRequest
	CodeMethodNotFound = bridge.CodeMethodNotFound
	CodeInvalidParams  = bridge.CodeInvalidParams
	CodeInternalError  = bridge.CodeInternalError
	CodeFenced         = bridge.CodeFenced
	CodeNotFound       = bridge.CodeNotFound
	CodeAlreadyExists  = bridge.CodeAlreadyExists
	CodeTooLarge       = bridge.CodeTooLarge

	CodeStepFailed       = -32020 // an untyped step failure, timeout or cancellation
	CodeTypedFailure     = -32021 // a typed failure on a declared channel (rings refuse on theirs)
	CodeQuotaExceeded    = -32022 // admission control refused the effect (spec §8)
	CodeRefused          = -32023 // the ingress gate or the userspace rules refused; nothing appended
	CodeReplayDivergence = -32024 // a replay reached a syscall the log does not answer
	CodeNotRunnable      = -32025 // the execution is not in a state the method needs
	CodeSyscallError     = -32026 // the syscall's arguments are wrong for the kernel
	CodeDisabled         = -32027 // the syscall's feature flag is off
)

// decodeStrict decodes params into v refusing unknown fields and trailing data; the error names
// the field.
func decodeStrict(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if t := bytes.TrimSpace(raw); t[0] != '{' {
		return fmt.Errorf("params must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fieldError(err)
	}
	if dec.More() {
		return fmt.Errorf("params: trailing data")
	}
	return nil
}

// fieldErr is a decoder's refusal of params, naming the member (field, the path below params) when
// the decoder does.
type fieldErr struct{ field, msg string }

func (e *fieldErr) Error() string { return e.msg }

// fieldError words a decoding error as the caller wrote the request: the field below params and
// the JSON it wants, never a Go type (bridge.DecodeError).
func fieldError(err error) error {
	field, reason := bridge.DecodeError(err)
	if reason == "unknown field" {
		return &fieldErr{field, fmt.Sprintf("params: unknown field %q", field)}
	}
	return &fieldErr{field, fmt.Sprintf("%s: %s", strings.TrimSuffix("params."+field, "."), reason)}
}

// rpcErr builds an error with data {"kind": kind, ...kv}.
func rpcErr(code int, kind, msg string, kv ...any) *bridge.RPCError {
	m := map[string]any{"kind": kind}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	data, _ := json.Marshal(m)
	return &bridge.RPCError{Code: code, Message: msg, Data: data}
}

// DecodeRequest parses one request body. It never panics; a body that is not a JSON-RPC 2.0
// request object gets the JSON-RPC error for it. The body is read strictly first (jsonstrict):
// invalid UTF-8, a repeated key, nesting past the limit, or a number in params the kernel's
// IEEE-double model would change is refused naming the field, before anything decodes it.
func DecodeRequest(body []byte) (Request, *bridge.RPCError) {
	t := bytes.TrimSpace(body)
	if err := jsonstrict.Check(t, jsonstrict.Options{ExactDoublesIn: "params"}); err != nil {
		return strictRefusal(t, err)
	}
	var req Request
	if len(t) > 0 && t[0] == '{' {
		// one pass tells text that is not JSON (a syntax error) from a request of the wrong shape
		err := unmarshalRequest(t, &req)
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return Request{}, rpcErr(CodeParseError, "parse", "the request body is not JSON")
		}
		if err != nil {
			field, reason := bridge.DecodeError(err)
			return Request{}, rpcErr(CodeInvalidRequest, "request", "not a JSON-RPC 2.0 request object: "+strings.TrimPrefix(field+": "+reason, ": "), "field", field)
		}
	} else {
		if !json.Valid(t) {
			return Request{}, rpcErr(CodeParseError, "parse", "the request body is not JSON")
		}
		if len(t) > 0 && t[0] == '[' {
			return Request{}, rpcErr(CodeInvalidRequest, "batch", "batch requests are not part of the wire ABI")
		}
		return Request{}, rpcErr(CodeInvalidRequest, "request", "a request is a JSON object")
	}
	id := bytes.TrimSpace(req.ID)
	switch {
	case req.JSONRPC != "2.0":
		return req, rpcErr(CodeInvalidRequest, "request", `"jsonrpc" must be "2.0"`, "field", "jsonrpc")
	case req.Method == "":
		return req, rpcErr(CodeInvalidRequest, "request", `"method" is required`, "field", "method")
	case !validID(id):
		return req, rpcErr(CodeInvalidRequest, "request", `"id" must be a string or a number`, "field", "id")
	}
	return req, nil
}

// strictRefusal answers a body jsonstrict refused (I-NET-5, I-NET-6): text that is not JSON is
// -32700 "parse"; nesting past the limit -32008 "depth" with the limit; invalid UTF-8, a repeated
// key or an inexact number is -32602 in params and -32600 in the frame, its kind "utf8",
// "duplicate-key" or "number" and its field the path below params. The id is answered when it
// can be read.
func strictRefusal(body []byte, err error) (Request, *bridge.RPCError) {
	var se *jsonstrict.Error
	if !errors.As(err, &se) || se.Kind == jsonstrict.Syntax {
		return Request{}, rpcErr(CodeParseError, "parse", "the request body is not JSON: "+err.Error())
	}
	if se.Kind == jsonstrict.TooDeep {
		field := se.Path
		if below, ok := strings.CutPrefix(field, "params"); ok && (below == "" || below[0] == '.' || below[0] == '[') {
			field = strings.TrimPrefix(below, ".") // I-WIRE-48: the path below params
		}
		return Request{}, rpcErr(CodeTooLarge, "depth", fmt.Sprintf("the request nests deeper than %d levels, the wire's limit", se.Limit), "limit", se.Limit, "field", field)
	}
	var req Request
	_ = json.Unmarshal(body, &req) // JSON encoding/json reads: the id can be answered
	if !bridge.AnswerableID(req.ID) {
		req.ID = nil // an id holding the refused bytes is answered as null
	}
	field, inParams := strings.CutPrefix(se.Path, "params")
	if inParams && (field == "" || field[0] == '.' || field[0] == '[') {
		field = strings.TrimPrefix(field, ".")
		msg := se.Path
		if req.Method != "" {
			msg = req.Method + ": " + msg
		}
		return req, rpcErr(CodeInvalidParams, string(se.Kind), msg+": "+se.Reason, "field", field)
	}
	return req, rpcErr(CodeInvalidRequest, string(se.Kind), "the request frame: "+err.Error(), "field", se.Path)
}

// validID reports whether id is one a response may echo: a string or a number.
func validID(id []byte) bool {
	return len(id) > 0 && string(id) != "null" && (id[0] == '"' || (id[0] >= '0' && id[0] <= '9') || id[0] == '-')
}

// unmarshalRequest is json.Unmarshal of a request object: valid JSON whose members are the four a
// request has, each plain, is walked; anything else is json.Unmarshal's (its error included).
func unmarshalRequest(t []byte, req *Request) error {
	if json.Valid(t) && eachMember(t, func(k, v []byte) bool {
		ok := true
		switch string(k) {
		case "jsonrpc":
			req.JSONRPC, ok = plainString(v)
		case "method":
			req.Method, ok = plainString(v)
		case "id":
			req.ID = append(json.RawMessage(nil), v...)
		case "params":
			req.Params = append(json.RawMessage(nil), v...)
		default:
			ok = false
		}
		return ok
	}) {
		return nil
	}
	*req = Request{}
	return json.Unmarshal(t, req)
}
