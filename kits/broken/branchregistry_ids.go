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

// --- listChildren(p) scans the parents whose id matches p by a pattern, not by equality, and lists
// their children too: LIKE '<parent>%' that drops only paths under '<parent>/' (likePrefix), or
// branches kept as paths, where p.q's children are under p (underPath).
type childrenScanned struct {
	br
	match   func(parent, k string) bool
	mu      *sync.Mutex
	parents map[string]bool
}

func newChildrenScanned(match func(parent, k string) bool) childrenScanned {
	return childrenScanned{newBR(), match, &sync.Mutex{}, map[string]bool{}}
}

func likePrefix(parent, k string) bool {
	return strings.HasPrefix(k, parent) && !strings.HasPrefix(k, parent+"/")
}

func underPath(sep string) func(parent, k string) bool {
	return func(parent, k string) bool { return strings.HasPrefix(k, parent+sep) }
}

func (r childrenScanned) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err == nil {
		r.mu.Lock()
		r.parents[b.ParentID] = true
		r.mu.Unlock()
	}
	return err
}

func (r childrenScanned) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	r.mu.Lock()
	keys := sortedKeys(r.parents)
	r.mu.Unlock()
	out := []spi.Branch{}
	for _, k := range keys {
		if k == parent || r.match(parent, k) {
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
