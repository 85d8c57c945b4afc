package safehttp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sized is an answer of n bytes.
type sized int64

func (s sized) Size() int64 { return int64(s) }

func (s sized) Write(w io.Writer) error {
	_, err := w.Write(bytes.Repeat([]byte("x"), int(s)))
	return err
}

// gatedWriter is a client that takes nothing until its gate opens.
type gatedWriter struct {
	httptest.ResponseRecorder
	gate    chan struct{}
	writing chan struct{}
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	select {
	case g.writing <- struct{}{}:
	default:
	}
	<-g.gate
	return g.ResponseRecorder.Write(p)
}

// Reference: I-NET-4 — a large answer that does not fit the answer budget is dropped, waits for
// its room without a slot, and is built again; the same request asked once more reserves its
// remembered size before it is built, so it is built once.
func TestAnswersBuildAgainOnlyOnceRoomIsReserved(t *testing.T) {
	const big = 100 << 10
	a := NewAnswers(2, 150<<10, time.Hour)
	var builds atomic.Int32
	build := func(context.Context) Answer { builds.Add(1); return sized(big) }
	req := func() *http.Request { return httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")) }

	holder := &gatedWriter{ResponseRecorder: *httptest.NewRecorder(), gate: make(chan struct{}), writing: make(chan struct{}, 1)}
	held := make(chan error, 1)
	go func() { held <- a.Serve(holder, req(), "first", build) }()
	<-holder.writing // it holds its 100 KiB and its client takes nothing

	second := httptest.NewRecorder()
	done := make(chan error, 1)
	go func() { done <- a.Serve(second, req(), "second", build) }()
	for a.size("second") == 0 { // built once: it did not fit and waits for its room
		time.Sleep(time.Millisecond)
	}
	close(holder.gate)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || second.Body.Len() != big {
		t.Fatalf("the answer that waited for its room: %v, %d bytes, want %d", err, second.Body.Len(), big)
	}
	if n := builds.Load(); n != 3 {
		t.Fatalf("%d builds, want 3 (the first, and the second twice: dropped, then built in its room)", n)
	}
	third := httptest.NewRecorder()
	if err := a.Serve(third, req(), "second", build); err != nil || third.Body.Len() != big {
		t.Fatalf("the same request again: %v, %d bytes", err, third.Body.Len())
	}
	if n := builds.Load(); n != 4 {
		t.Fatalf("%d builds after the same request again, want 4 (its size known, its room reserved first)", n)
	}
	if a.Budget().Used() != 0 {
		t.Fatalf("%d bytes still held after every answer was written", a.Budget().Used())
	}
}
