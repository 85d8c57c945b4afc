package broken

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- re-registration compares metadata bytes.
type branchBytesCompare struct{ br }

func (r branchBytesCompare) Register(ctx context.Context, b spi.Branch) error {
	if old, err := r.br.Get(ctx, b.ID); err == nil {
		if old.ParentID != b.ParentID || old.ForkSequence != b.ForkSequence || !bytes.Equal(old.Metadata, b.Metadata) {
			return spi.ErrAlreadyExists
		}
		return nil
	}
	return r.br.Register(ctx, b)
}

// --- re-registration compares metadata decoded through float64.
type branchFloatCompare struct{ br }

func (r branchFloatCompare) Register(ctx context.Context, b spi.Branch) error {
	if old, err := r.br.Get(ctx, b.ID); err == nil {
		if old.ParentID != b.ParentID || old.ForkSequence != b.ForkSequence || !floatEqual(old.Metadata, b.Metadata) {
			return spi.ErrAlreadyExists
		}
		return nil
	}
	return r.br.Register(ctx, b)
}

// --- register overwrites a different branch.
type registerOverwrites struct {
	br
	mu   *sync.Mutex
	last map[string]spi.Branch
}

func (r registerOverwrites) Register(ctx context.Context, b spi.Branch) error {
	if err := r.br.Register(ctx, b); err != nil && err != spi.ErrAlreadyExists {
		return err
	}
	r.mu.Lock()
	r.last[b.ID] = b
	r.mu.Unlock()
	return nil
}

func (r registerOverwrites) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	b, ok := r.last[id]
	r.mu.Unlock()
	if ok {
		return b, nil
	}
	return r.br.Get(ctx, id)
}

// --- no cycle detection beyond a self-parent.
type cyclesAllowed struct {
	br
	mu    *sync.Mutex
	extra map[string]spi.Branch
}

func (r cyclesAllowed) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err != nil && b.ParentID != b.ID && b.ID != "" && b.ParentID != "" && b.ForkSequence >= 0 {
		if _, gerr := r.br.Get(ctx, b.ID); gerr == spi.ErrNotFound {
			r.mu.Lock()
			r.extra[b.ID] = b
			r.mu.Unlock()
			return nil
		}
	}
	return err
}

func (r cyclesAllowed) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	b, ok := r.extra[id]
	r.mu.Unlock()
	if ok {
		return b, nil
	}
	return r.br.Get(ctx, id)
}

// --- register checks, then writes, without holding anything in between.
type registerRace struct {
	br
	mu   *sync.Mutex
	data map[string]spi.Branch
	pace pace // how the window opens (see gap)
}

func (r registerRace) Register(ctx context.Context, b spi.Branch) error {
	if err := spi.ValidateBranch(b); err != nil {
		return err
	}
	r.mu.Lock()
	old, ok := r.data[b.ID]
	r.mu.Unlock()
	if ok {
		if spi.SameBranch(old, b) {
			return nil
		}
		return spi.ErrAlreadyExists
	}
	gap(r.pace, func() { time.Sleep(300 * time.Microsecond) })
	r.mu.Lock()
	r.data[b.ID] = b
	r.mu.Unlock()
	return nil
}

func (r registerRace) Get(ctx context.Context, id string) (spi.Branch, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.data[id]
	if !ok {
		return spi.Branch{}, spi.ErrNotFound
	}
	return b, nil
}

// --- get of an unknown id returns a zero branch.
type zeroForUnknown struct{ br }

func (r zeroForUnknown) Get(ctx context.Context, id string) (spi.Branch, error) {
	b, err := r.br.Get(ctx, id)
	if err == spi.ErrNotFound {
		return spi.Branch{ID: id}, nil
	}
	return b, err
}

// --- branch metadata numbers pass through float64.
type lossyBranch struct{ br }

func (r lossyBranch) Register(ctx context.Context, b spi.Branch) error {
	b.Metadata = viaFloat(b.Metadata)
	return r.br.Register(ctx, b)
}

// --- registering an id already registered is already-exists, an equal branch included; a choice
// the spec leaves open (I-STORE-72).
type registerEqualExists struct{ br }

func (r registerEqualExists) Register(ctx context.Context, b spi.Branch) error {
	if _, err := r.br.Get(ctx, b.ID); err == nil {
		return spi.ErrAlreadyExists
	}
	return r.br.Register(ctx, b)
}

// --- forkSequence is kept in a SMALLINT column, so a fork past sequence 32767 is refused.
type forkSequenceSmallint struct{ br }

func (s forkSequenceSmallint) Register(ctx context.Context, b spi.Branch) error {
	if b.ForkSequence > 32767 {
		return spi.Invalid("register", "forkSequence", "%d is out of range for type smallint", b.ForkSequence)
	}
	return s.br.Register(ctx, b)
}
