package spi

import (
	"errors"
	"fmt"
	"testing"
)

func TestTypedErrorsMatchSentinels(t *testing.T) {
	cases := []struct {
		err  error
		want error
	}{
		{&ConflictError{ExecutionID: "e", Expected: 1, Actual: 2}, ErrConflict},
		{&FencedError{ExecutionID: "e", Held: 1, Current: 2}, ErrFenced},
		{Invalid("append", "events", "bad"), ErrInvalidArgument},
	}
	for _, c := range cases {
		wrapped := fmt.Errorf("outer: %w", c.err)
		if !errors.Is(wrapped, c.want) {
			t.Errorf("errors.Is(%v, %v) = false, want true", wrapped, c.want)
		}
		if errors.Is(wrapped, ErrNotFound) {
			t.Errorf("errors.Is(%v, ErrNotFound) = true, want false", wrapped)
		}
	}
	var fe *FencedError
	if !errors.As(fmt.Errorf("x: %w", &FencedError{Current: 7}), &fe) || fe.Current != 7 {
		t.Errorf("errors.As(FencedError) lost the current token")
	}
}

func TestValidateBatch(t *testing.T) {
	ok := Envelope{ExecutionID: "e", Sequence: 0, Payload: []byte(`{}`)}
	next := Envelope{ExecutionID: "e", Sequence: 1, Payload: []byte(`1`), Metadata: []byte(`{"a":1}`)}
	if err := ValidateBatch("append", "e", []Envelope{ok, next}); err != nil {
		t.Fatalf("ValidateBatch(dense) = %v, want nil", err)
	}
	gap := next
	gap.Sequence = 2
	badMeta := next
	badMeta.Metadata = []byte(`[1]`)
	other := next
	other.ExecutionID = "f"
	for name, batch := range map[string][]Envelope{
		"gap": {ok, gap}, "metadata": {ok, badMeta}, "other execution": {ok, other},
		"bad payload": {{ExecutionID: "e", Payload: []byte(`{`)}},
	} {
		if err := ValidateBatch("append", "e", batch); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("ValidateBatch(%s) = %v, want ErrInvalidArgument", name, err)
		}
	}
	if err := ValidateBatch("append", "", nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("ValidateBatch(empty id) = %v, want ErrInvalidArgument", err)
	}
}
