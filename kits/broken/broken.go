package broken

import (
	"context"

	"github.com/loom-kernel/loom-conform/kits"
)

// Store is one deliberately broken store.
type Store[T any] struct {
	Name   string // short id
	Defect string // what is wrong, one line
	Catch  string // the check id that must reject it
	New    func() T
}

// Factory adapts New to a kits.Factory.
func (s Store[T]) Factory() kits.Factory[T] {
	return func(ctx context.Context) (T, func(), error) { return s.New(), nil, nil }
}
