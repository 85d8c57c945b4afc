package memory

import (
	"context"
	"sort"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// BranchRegistry is the in-memory BranchRegistry.
type BranchRegistry struct {
	mu       sync.Mutex
	branches map[string]spi.Branch
}

// NewBranchRegistry returns an empty registry.
func NewBranchRegistry() *BranchRegistry {
	return &BranchRegistry{branches: map[string]spi.Branch{}}
}

// BranchRegistrySpiVersion claims the current BranchRegistry SPI.
func (r *BranchRegistry) BranchRegistrySpiVersion() string { return manifest.BranchRegistrySpiVersion }

// Register implements spi.BranchRegistry.
func (r *BranchRegistry) Register(ctx context.Context, b spi.Branch) error {
	if err := spi.ValidateBranch(b); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.branches[b.ID]; ok {
		if spi.SameBranch(old, b) {
			return nil
		}
		return spi.ErrAlreadyExists
	}
	for p, n := b.ParentID, 0; p != "" && n <= len(r.branches); n++ {
		if p == b.ID {
			return spi.Invalid("register", "parentId", "%q would make a cycle", b.ParentID)
		}
		p = r.branches[p].ParentID
	}
	b.Metadata = append([]byte(nil), b.Metadata...)
	r.branches[b.ID] = b
	return nil
}

// Get implements spi.BranchRegistry.
func (r *BranchRegistry) Get(ctx context.Context, id string) (spi.Branch, error) {
	if err := ctx.Err(); err != nil {
		return spi.Branch{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.branches[id]
	if !ok {
		return spi.Branch{}, spi.ErrNotFound
	}
	b.Metadata = append([]byte(nil), b.Metadata...)
	return b, nil
}

// ListChildren implements spi.BranchRegistry.
func (r *BranchRegistry) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []spi.Branch{}
	for _, b := range r.branches {
		if b.ParentID == parent {
			b.Metadata = append([]byte(nil), b.Metadata...)
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
