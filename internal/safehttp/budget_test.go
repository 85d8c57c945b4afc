package safehttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Reference: I-NET-4 — request bodies held at once stay within the budget: a request that does
// not fit waits, and leaves when its client does; one read a piece at a time holds only a piece.
func TestBudget(t *testing.T) {
	b := NewBudget(4<<20, 1<<20)
	req := func(length int64, ctx context.Context) *http.Request {
		r := httptest.NewRequest("POST", "/", strings.NewReader("")).WithContext(ctx)
		r.ContentLength = length
		return r
	}
	var releases []func()
	for range 4 {
		rel, err := b.Reserve(req(1<<20, context.Background()), 0)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, rel)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := b.Reserve(req(1<<20, ctx), 0); err == nil {
		t.Fatal("a fifth 1 MiB request fit a 4 MiB budget")
	}
	releases[0]()
	// A body of unknown length read a line at a time holds one line.
	for range 16 {
		rel, err := b.Reserve(req(-1, context.Background()), 64<<10)
		if err != nil {
			t.Fatalf("a stream holding 64 KiB: %v", err)
		}
		defer rel()
	}
}
