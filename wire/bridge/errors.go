package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// Error codes of the store bridge (docs/bridge.md, "Errors"). The JSON-RPC 2.0 codes keep their
// meaning; the -3200x codes carry the typed SPI errors so errors.Is works on the client side.
const (
	CodeParseError     = -32700 // the request body is not JSON
	CodeInvalidRequest = -32600 // not a JSON-RPC 2.0 request object (a batch included)
	CodeMethodNotFound = -32601 // unknown method, or one the handshake did not declare
	CodeInvalidParams  = -32602 // params do not match the method's schema → spi.ErrInvalidArgument
	CodeInternalError  = -32603 // the store failed in a way the SPI has no name for

	CodeConflict        = -32001 // spi.ErrConflict; data: {executionId, expected, actual, reason?}
	CodeFenced          = -32002 // spi.ErrFenced; data: {executionId, held, current?}
	CodeNotFound        = -32003 // spi.ErrNotFound
	CodeAlreadyExists   = -32004 // spi.ErrAlreadyExists
	CodeInvalidArgument = -32005 // spi.ErrInvalidArgument; data: {op, argument, reason}
	CodeUnsupported     = -32006 // spi.ErrUnsupported
	CodeTimeout         = -32007 // the bridge's per-call deadline passed; the outcome is unknown
	CodeTooLarge        = -32008 // the request exceeds the bridge's size limit
	CodeUnknownTarget   = -32009 // spi.ErrUnknownTarget; data: {target, known}
	CodeLeaseLost       = -32010 // spi.ErrLeaseLost; data: {executionId, token}
)

// RPCError is a JSON-RPC 2.0 error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("bridge error %d: %s", e.Code, e.Message) }

// conflictData, fencedData and invalidData are the data members of the typed errors.
type (
	conflictData struct {
		ExecutionID string `json:"executionId"`
		Expected    int64  `json:"expected"`
		Actual      int64  `json:"actual"`
		Reason      string `json:"reason,omitempty"`
	}
	fencedData struct {
		ExecutionID string `json:"executionId"`
		Held        int64  `json:"held"`
		// Current is absent when the store cannot say the current token (spi.FencedError.CurrentUnknown).
		Current *int64 `json:"current,omitempty"`
	}
	invalidData struct {
		Op       string `json:"op"`
		Argument string `json:"argument"`
		Reason   string `json:"reason"`
	}
)

// ErrorFromSPI encodes a store error as an RPCError (server side).
func ErrorFromSPI(err error) *RPCError {
	mk := func(code int, data any) *RPCError {
		e := &RPCError{Code: code, Message: err.Error()}
		if data != nil {
			e.Data, _ = json.Marshal(data)
		}
		return e
	}
	var ce *spi.ConflictError
	var fe *spi.FencedError
	var ie *spi.InvalidArgumentError
	var ute *spi.UnknownTargetError
	var lle *spi.LeaseLostError
	switch {
	case errors.As(err, &ute):
		return mk(CodeUnknownTarget, unknownTargetData{ute.Target, nonNil(ute.Known)})
	case errors.Is(err, spi.ErrUnknownTarget):
		return mk(CodeUnknownTarget, nil)
	case errors.As(err, &lle):
		return mk(CodeLeaseLost, leaseLostData{lle.ExecutionID, lle.Token})
	case errors.Is(err, spi.ErrLeaseLost):
		return mk(CodeLeaseLost, nil)
	case errors.As(err, &ce):
		return mk(CodeConflict, conflictData{ce.ExecutionID, ce.Expected, ce.Actual, ce.Reason})
	case errors.Is(err, spi.ErrConflict):
		return mk(CodeConflict, nil)
	case errors.As(err, &fe):
		d := fencedData{ExecutionID: fe.ExecutionID, Held: fe.Held}
		if !fe.CurrentUnknown {
			d.Current = &fe.Current
		}
		return mk(CodeFenced, d)
	case errors.Is(err, spi.ErrFenced):
		return mk(CodeFenced, nil)
	case errors.As(err, &ie):
		return mk(CodeInvalidArgument, invalidData{ie.Op, ie.Argument, ie.Reason})
	case errors.Is(err, spi.ErrInvalidArgument):
		return mk(CodeInvalidArgument, nil)
	case errors.Is(err, spi.ErrNotFound):
		return mk(CodeNotFound, nil)
	case errors.Is(err, spi.ErrAlreadyExists):
		return mk(CodeAlreadyExists, nil)
	case errors.Is(err, spi.ErrUnsupported):
		return mk(CodeUnsupported, nil)
	case errors.Is(err, context.DeadlineExceeded):
		return mk(CodeTimeout, nil)
	case errors.As(err, new(*tooLargeError)):
		return mk(CodeTooLarge, nil)
	}
	return mk(CodeInternalError, nil)
}

// RemoteError is an error answered by the bridge. It unwraps to the matching spi sentinel (or
// typed error), so errors.Is(err, spi.ErrConflict) holds on the client exactly when the store
// returned a conflict.
type RemoteError struct {
	Method string
	RPC    RPCError
	typed  error // *spi.ConflictError, *spi.FencedError, … or nil
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("%s: bridge answered error %d (%s): %s", e.Method, e.RPC.Code, codeName(e.RPC.Code), e.RPC.Message)
}

// Unwrap returns the typed SPI error the code stands for.
func (e *RemoteError) Unwrap() error { return e.typed }

// ErrorToSPI decodes an RPCError answered to method (client side).
func ErrorToSPI(method string, r RPCError) error {
	e := &RemoteError{Method: method, RPC: r}
	switch r.Code {
	case CodeConflict:
		var d conflictData
		if json.Unmarshal(r.Data, &d) == nil && len(r.Data) > 0 {
			e.typed = &spi.ConflictError{ExecutionID: d.ExecutionID, Expected: d.Expected, Actual: d.Actual, Reason: d.Reason}
		} else {
			e.typed = spi.ErrConflict
		}
	case CodeFenced:
		var d fencedData
		if json.Unmarshal(r.Data, &d) == nil && len(r.Data) > 0 {
			// Data without `current` does not say the current token: it is unknown, not token 0.
			fe := &spi.FencedError{ExecutionID: d.ExecutionID, Held: d.Held, CurrentUnknown: d.Current == nil}
			if d.Current != nil {
				fe.Current = *d.Current
			}
			e.typed = fe
		} else {
			e.typed = spi.ErrFenced
		}
	case CodeInvalidArgument, CodeInvalidParams:
		var d invalidData
		if json.Unmarshal(r.Data, &d) == nil && len(r.Data) > 0 && d.Argument != "" {
			e.typed = &spi.InvalidArgumentError{Op: d.Op, Argument: d.Argument, Reason: d.Reason}
		} else {
			e.typed = &spi.InvalidArgumentError{Op: method, Argument: "params", Reason: r.Message}
		}
	case CodeUnknownTarget:
		var d unknownTargetData
		_ = json.Unmarshal(r.Data, &d)
		e.typed = &spi.UnknownTargetError{Target: d.Target, Known: d.Known}
	case CodeLeaseLost:
		var d leaseLostData
		_ = json.Unmarshal(r.Data, &d)
		e.typed = &spi.LeaseLostError{ExecutionID: d.ExecutionID, Token: d.Token}
	case CodeNotFound:
		e.typed = spi.ErrNotFound
	case CodeAlreadyExists:
		e.typed = spi.ErrAlreadyExists
	case CodeUnsupported, CodeMethodNotFound:
		// A method the bridge does not know is one it does not implement.
		e.typed = spi.ErrUnsupported
	case CodeTimeout:
		e.typed = context.DeadlineExceeded
	}
	return e
}

func codeName(code int) string {
	switch code {
	case CodeParseError:
		return "parse error"
	case CodeInvalidRequest:
		return "invalid request"
	case CodeMethodNotFound:
		return "method not found"
	case CodeInvalidParams:
		return "invalid params"
	case CodeInternalError:
		return "internal error"
	case CodeConflict:
		return "conflict"
	case CodeFenced:
		return "fenced"
	case CodeNotFound:
		return "not found"
	case CodeAlreadyExists:
		return "already exists"
	case CodeInvalidArgument:
		return "invalid argument"
	case CodeUnsupported:
		return "unsupported"
	case CodeTimeout:
		return "timeout"
	case CodeTooLarge:
		return "too large"
	case CodeUnknownTarget:
		return "unknown target"
	case CodeLeaseLost:
		return "lease lost"
	}
	return "unknown code"
}

// TransportError is a failure to talk to the bridge at all: the connection was refused or cut, the
// HTTP status was not 200, or the call's deadline passed. The store's state after it is unknown.
type TransportError struct {
	Method string
	Err    error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("%s: bridge unreachable: %v", e.Method, e.Err)
}
func (e *TransportError) Unwrap() error { return e.Err }

// RefusedError is a request the server refused before reading it (docs/bridge.md, "Running it
// safely"): HTTP 401 (the bearer token is missing or wrong), 403 (a Host or Origin it does not
// serve) or 415 (a Content-Type it does not speak). Nothing was done; retrying the same request
// will not help. Client.Stats counts it with the transport errors: it is the link's
// configuration, not the store, that is wrong.
type RefusedError struct {
	Method string
	Status string
	Reason string // the server's sentence
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s: the server refused the request (HTTP %s): %s", e.Method, e.Status, e.Reason)
}

// ProtocolError is an answer that breaks the bridge protocol: not JSON, not a JSON-RPC 2.0
// response, a wrong id, or a result or error that does not match the method's schema.
type ProtocolError struct {
	Method string
	Reason string
	Body   string // the start of the offending body
}

func (e *ProtocolError) Error() string {
	s := fmt.Sprintf("%s: bridge broke the protocol: %s", e.Method, e.Reason)
	if e.Body != "" {
		s += fmt.Sprintf(" (body: %q)", e.Body)
	}
	return s
}
