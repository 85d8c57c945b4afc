package spi

import (
	"context"
	"encoding/json"
)

// Branch records that execution ID was forked from ParentID after the parent's envelope at
// ForkSequence.
type Branch struct {
	ID           string          `json:"id"`
	ParentID     string          `json:"parentId"`
	ForkSequence int64           `json:"forkSequence"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
}

// BranchRegistry is the branch seam (spec §7).
type BranchRegistry interface {
	// Register records b. A different branch under the same id is ErrAlreadyExists; a branch that
	// would make a cycle, an empty parent id or a negative ForkSequence is ErrInvalidArgument
	// (I-STORE-20). Recommended: registering an equal branch again (by JSON value) succeeds and
	// changes nothing (I-STORE-72, I-STORE-29); the parent need not be registered or written
	// (I-STORE-54).
	Register(ctx context.Context, b Branch) error
	// Get returns the branch registered under id, or ErrNotFound.
	Get(ctx context.Context, id string) (Branch, error)
	// ListChildren returns the branches whose ParentID is parentID, ascending by ID (in byte order,
	// recommended, I-STORE-28).
	ListChildren(ctx context.Context, parentID string) ([]Branch, error)
}

// BranchRegistryVersioned is how a BranchRegistry states the SPI version it claims.
type BranchRegistryVersioned interface {
	BranchRegistrySpiVersion() string
}
