package kits

import (
	"context"
	"fmt"

	"github.com/loom-kernel/loom-conform/spi"
)

// KitNames lists the kits RunByName knows, in order.
func KitNames() []string {
	return []string{"eventstore", "snapshotstore", "archivestore", "branchregistry", "contentstore", "durablestatestore", "readmodelstore", "dispatcher"}
}

// AnyFactory makes a fresh target of any type; RunByName asserts it to the kit's seam.
type AnyFactory func(ctx context.Context) (any, func(), error)

// RunByName runs the kit called name (see KitNames) against targets from factory, for callers such
// as a CLI that pick the kit at run time. A target that does not implement the seam is an error
// naming what it lacks.
func RunByName(ctx context.Context, name string, factory AnyFactory, opts Options) ([]Result, error) {
	switch name {
	case "eventstore":
		return Run(ctx, EventStoreKit(), adapt[spi.EventStore](name, factory), opts)
	case "snapshotstore":
		return Run(ctx, SnapshotStoreKit(), adapt[spi.SnapshotStore](name, factory), opts)
	case "archivestore":
		return Run(ctx, ArchiveStoreKit(), adapt[spi.ArchiveStore](name, factory), opts)
	case "branchregistry":
		return Run(ctx, BranchRegistryKit(), adapt[spi.BranchRegistry](name, factory), opts)
	case "contentstore":
		return Run(ctx, ContentStoreKit(), adapt[spi.ContentStore](name, factory), opts)
	case "durablestatestore":
		return Run(ctx, DurableStateStoreKit(), adapt[spi.DurableStateStore](name, factory), opts)
	case "readmodelstore":
		return Run(ctx, ReadModelStoreKit(), adapt[spi.ReadModelStore](name, factory), opts)
	case "dispatcher":
		return Run(ctx, ExecutionDispatcherKit(), adapt[spi.ExecutionDispatcher](name, factory), opts)
	}
	return nil, fmt.Errorf("unknown kit %q (want one of %v)", name, KitNames())
}

func adapt[T any](name string, f AnyFactory) Factory[T] {
	return func(ctx context.Context) (T, func(), error) {
		var zero T
		v, cleanup, err := f(ctx)
		if err != nil {
			return zero, cleanup, err
		}
		t, ok := v.(T)
		if !ok {
			return zero, cleanup, fmt.Errorf("target %T does not implement the %s seam", v, name)
		}
		return t, cleanup, nil
	}
}
