package safehttp

import (
	"fmt"
	"net/http"

	"golang.org/x/sync/semaphore"
)

// Budget bounds the request bytes a server holds at once: a request reserves its declared length
// (or the per-request maximum when it declares none) before its body is read, and waits — as long
// as its client stays — while others hold the budget.
type Budget struct {
	sem        *semaphore.Weighted
	total, max int64
}

// NewBudget returns a budget of total bytes for requests of at most maxReq bytes each (total is
// raised to maxReq when smaller, so one request always fits).
func NewBudget(total, maxReq int64) *Budget {
	total = max(total, maxReq)
	return &Budget{sem: semaphore.NewWeighted(total), total: total, max: maxReq}
}

// Reserve waits until r's bytes fit the budget and returns the function that gives them back. It
// fails only when the client went away (r's context ended) while waiting. A request whose body
// is read a piece at a time holds at most held bytes at once (0: its whole body).
func (b *Budget) Reserve(r *http.Request, held int64) (release func(), err error) {
	n := b.max
	if r.ContentLength >= 0 && r.ContentLength < n {
		n = r.ContentLength
	}
	if held > 0 && held < n {
		n = held
	}
	if err := b.sem.Acquire(r.Context(), n); err != nil {
		return nil, fmt.Errorf("waiting for %d bytes of the server's %d-byte request budget: %w", n, b.total, err)
	}
	return func() { b.sem.Release(n) }, nil
}
