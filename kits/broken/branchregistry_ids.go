package broken

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- branches keyed by the lower-cased id.
type branchesFoldCase struct{ br }

func (r branchesFoldCase) Register(ctx context.Context, b spi.Branch) error {
	b.ID = strings.ToLower(b.ID)
	return r.br.Register(ctx, b)
}

func (r branchesFoldCase) Get(ctx context.Context, id string) (spi.Branch, error) {
	b, err := r.br.Get(ctx, strings.ToLower(id))
	if err == nil {
		b.ID = id
	}
	return b, err
}

// --- listChildren matches the parent with LIKE '<parent>%' and drops only paths under
// '<parent>/', so children of parents whose id extends it are listed too.
type childrenLikePrefix struct {
	br
	mu      *sync.Mutex
	parents map[string]bool
}

func (r childrenLikePrefix) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err == nil {
		r.mu.Lock()
		r.parents[b.ParentID] = true
		r.mu.Unlock()
	}
	return err
}

func (r childrenLikePrefix) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	r.mu.Lock()
	keys := sortedKeys(r.parents)
	r.mu.Unlock()
	out := []spi.Branch{}
	for _, k := range keys {
		if k == parent || (strings.HasPrefix(k, parent) && !strings.HasPrefix(k, parent+"/")) {
			got, err := r.br.ListChildren(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// --- branches kept as paths: listChildren(p) lists the children of p and of every parent whose id
// extends p after sep.
type childrenByPath struct {
	br
	sep     string
	mu      *sync.Mutex
	parents map[string]bool
}

func newChildrenByPath(sep string) childrenByPath {
	return childrenByPath{newBR(), sep, &sync.Mutex{}, map[string]bool{}}
}

func (r childrenByPath) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err == nil {
		r.mu.Lock()
		r.parents[b.ParentID] = true
		r.mu.Unlock()
	}
	return err
}

func (r childrenByPath) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	r.mu.Lock()
	keys := sortedKeys(r.parents)
	r.mu.Unlock()
	out := []spi.Branch{}
	for _, k := range keys {
		if k == parent || strings.HasPrefix(k, parent+r.sep) {
			got, err := r.br.ListChildren(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
