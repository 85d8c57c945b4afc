package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Typed SPI errors survive the round trip server → code → client (I-BRIDGE-3).
func TestErrorCodesRoundTrip(t *testing.T) {
	cases := []struct {
		err  error
		code int
		is   error
	}{
		{&spi.ConflictError{ExecutionID: "e", Expected: 1, Actual: 3}, bridge.CodeConflict, spi.ErrConflict},
		{fmt.Errorf("wrapped: %w", &spi.FencedError{ExecutionID: "e", Held: 1, Current: 2}), bridge.CodeFenced, spi.ErrFenced},
		{spi.ErrNotFound, bridge.CodeNotFound, spi.ErrNotFound},
		{spi.ErrAlreadyExists, bridge.CodeAlreadyExists, spi.ErrAlreadyExists},
		{spi.Invalid("append", "events", "gap"), bridge.CodeInvalidArgument, spi.ErrInvalidArgument},
		{spi.ErrUnsupported, bridge.CodeUnsupported, spi.ErrUnsupported},
		{context.DeadlineExceeded, bridge.CodeTimeout, context.DeadlineExceeded},
		{errors.New("disk on fire"), bridge.CodeInternalError, nil},
	}
	for _, c := range cases {
		rpc := bridge.ErrorFromSPI(c.err)
		if rpc.Code != c.code {
			t.Errorf("ErrorFromSPI(%v).Code = %d, want %d", c.err, rpc.Code, c.code)
		}
		back := bridge.ErrorToSPI("m", *rpc)
		if c.is != nil && !errors.Is(back, c.is) {
			t.Errorf("ErrorToSPI(%d) = %v, want errors.Is %v", rpc.Code, back, c.is)
		}
		for _, other := range []error{spi.ErrConflict, spi.ErrFenced, spi.ErrNotFound, spi.ErrAlreadyExists, spi.ErrInvalidArgument} {
			if other != c.is && errors.Is(back, other) {
				t.Errorf("ErrorToSPI(%d) = %v, also matches %v", rpc.Code, back, other)
			}
		}
	}
	var fe *spi.FencedError
	if !errors.As(bridge.ErrorToSPI("m", *bridge.ErrorFromSPI(&spi.FencedError{ExecutionID: "e", Held: 4, Current: 9})), &fe) || fe.Current != 9 || fe.Held != 4 {
		t.Errorf("ErrorToSPI lost the FencedError details: %+v", fe)
	}
	var ce *spi.ConflictError
	if !errors.As(bridge.ErrorToSPI("m", *bridge.ErrorFromSPI(&spi.ConflictError{ExecutionID: "e", Expected: 1, Actual: 3})), &ce) || ce.Actual != 3 {
		t.Errorf("ErrorToSPI lost the ConflictError details: %+v", ce)
	}
}

// Fenced error data without `current` (docs/bridge.md: data is optional) is a FencedError whose
// current token is unknown, never token 0; a FencedError that does not know it is sent without
// `current` (I-BRIDGE-3).
func TestFencedDataWithoutCurrent(t *testing.T) {
	for _, data := range []string{`{"executionId":"e","held":4}`, `{"executionId":"e"}`} {
		back := bridge.ErrorToSPI("m", bridge.RPCError{Code: bridge.CodeFenced, Message: "fenced", Data: json.RawMessage(data)})
		var fe *spi.FencedError
		if !errors.As(back, &fe) || !fe.CurrentUnknown || fe.Current != 0 || fe.ExecutionID != "e" {
			t.Errorf("ErrorToSPI(-32002, data %s) = %+v, want a FencedError with CurrentUnknown", data, fe)
		}
	}
	var fe *spi.FencedError
	known := bridge.ErrorToSPI("m", bridge.RPCError{Code: bridge.CodeFenced, Message: "fenced", Data: json.RawMessage(`{"executionId":"e","held":4,"current":0}`)})
	if !errors.As(known, &fe) || fe.CurrentUnknown || fe.Current != 0 || fe.Held != 4 {
		t.Errorf("ErrorToSPI(-32002, current 0) = %+v, want Current 0 known", fe)
	}
	rpc := bridge.ErrorFromSPI(&spi.FencedError{ExecutionID: "e", Held: 4, CurrentUnknown: true})
	var d map[string]any
	if err := json.Unmarshal(rpc.Data, &d); err != nil || d["held"] != float64(4) {
		t.Fatalf("ErrorFromSPI(CurrentUnknown).Data = %s (%v), want held 4", rpc.Data, err)
	}
	if _, ok := d["current"]; ok {
		t.Errorf("ErrorFromSPI(CurrentUnknown).Data = %s, want no current", rpc.Data)
	}
	if !errors.As(bridge.ErrorToSPI("m", *rpc), &fe) || !fe.CurrentUnknown {
		t.Errorf("round trip of CurrentUnknown = %+v, want CurrentUnknown", fe)
	}
}

// A client only calls declared methods: an undeclared one is unsupported without a call, and
// spi.Has says no, so a kit skips it (I-BRIDGE-2).
func TestUndeclaredMethodsAreUnsupported(t *testing.T) {
	srv, err := bridge.NewServer(bridge.Stores{EventStore: minimalStore{}}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	es := c.EventStore()
	if spi.Has("EventStore", es, spi.MethodReadRange) {
		t.Errorf("spi.Has(readRange) = true for a store without it")
	}
	if !spi.Has("EventStore", es, spi.MethodRead) {
		t.Errorf("spi.Has(read) = false")
	}
	before := c.Stats().Calls
	if _, err := es.ReadRange(context.Background(), "x", 0, -1); !errors.Is(err, spi.ErrUnsupported) {
		t.Errorf("ReadRange = %v, want ErrUnsupported", err)
	}
	if c.Stats().Calls != before {
		t.Errorf("ReadRange of an undeclared method made a call")
	}
	if c.SnapshotStore() != nil {
		t.Errorf("SnapshotStore() = non-nil for a bridge that does not serve it")
	}
}

type minimalStore struct{}

func (minimalStore) Append(context.Context, string, []spi.Envelope, spi.AppendOptions) error {
	return nil
}
func (minimalStore) Read(context.Context, string) ([]spi.Envelope, error) { return nil, nil }

type slowStore struct{ minimalStore }

func (slowStore) Read(ctx context.Context, _ string) ([]spi.Envelope, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// The server bounds request size and per-call time; both come back as their documented codes.
func TestServerLimits(t *testing.T) {
	srv, err := bridge.NewServer(bridge.Stores{EventStore: slowStore{}},
		bridge.ServerOptions{MaxRequestBytes: 2048, CallTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx := context.Background()
	c, err := bridge.Dial(ctx, url, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	big := spi.Envelope{ExecutionID: "x", Payload: json.RawMessage(`"` + strings.Repeat("a", 4096) + `"`)}
	var re *bridge.RemoteError
	if err := c.EventStore().Append(ctx, "x", []spi.Envelope{big}, spi.AppendOptions{}); !errors.As(err, &re) || re.RPC.Code != bridge.CodeTooLarge {
		t.Errorf("Append(4 KiB) to a 2 KiB bridge = %v, want error %d", err, bridge.CodeTooLarge)
	}
	if _, err := c.EventStore().Read(ctx, "x"); !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &re) || re.RPC.Code != bridge.CodeTimeout {
		t.Errorf("Read(slow store) = %v, want error %d matching context.DeadlineExceeded", err, bridge.CodeTimeout)
	}
	// A client deadline shorter than the store's answer is a transport error, counted as such.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	var te *bridge.TransportError
	if _, err := c.EventStore().Read(cctx, "x"); !errors.As(err, &te) {
		t.Errorf("Read with a 10 ms deadline = %v, want a TransportError", err)
	}
	if c.Stats().TransportErrors == 0 {
		t.Errorf("Stats().TransportErrors = 0 after a transport failure")
	}
}
