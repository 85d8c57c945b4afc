package broken

import (
	"context"
	"sort"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- listChildren ordered by a case-insensitive collation.
type childrenCollated struct {
	br
	less func(a, b string) bool
}

func (r childrenCollated) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	out, err := r.br.ListChildren(ctx, parent)
	sort.SliceStable(out, func(i, j int) bool { return r.less(out[i].ID, out[j].ID) })
	return out, err
}

// --- listChildren includes grandchildren.
type childrenAndGrandchildren struct{ br }

func (r childrenAndGrandchildren) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	out, err := r.br.ListChildren(ctx, parent)
	for _, c := range append([]spi.Branch{}, out...) {
		more, _ := r.br.ListChildren(ctx, c.ID)
		out = append(out, more...)
	}
	return out, err
}
