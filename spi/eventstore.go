package spi

import "context"

// AppendOptions qualifies an append.
type AppendOptions struct {
	// Fence is a token from AcquireFence/AcquireFenceIf; 0 means the write is not fenced. A fenced
	// write whose token is not the execution's current token fails with ErrFenced and changes nothing.
	Fence int64
}

// EventStore is the event-log seam (spec §7), required part.
type EventStore interface {
	// Append atomically appends events, all of execution executionID, whose sequences are dense and
	// ascending. The first sequence is the write's expectation: it must equal the next free sequence
	// of the execution (0 for a new or deleted one), otherwise nothing is written and ErrConflict is
	// returned. All or nothing. An empty batch is a no-op.
	Append(ctx context.Context, executionID string, events []Envelope, opts AppendOptions) error
	// Read returns every stored envelope of the execution in ascending sequence order (empty, not an
	// error, for an unknown execution).
	Read(ctx context.Context, executionID string) ([]Envelope, error)
}

// RangeReader is the optional readRange (SPI 1.0.0).
type RangeReader interface {
	// ReadRange returns the stored envelopes with from <= sequence < to, ascending. to < 0 means no
	// upper bound. from < 0 is ErrInvalidArgument.
	ReadRange(ctx context.Context, executionID string, from, to int64) ([]Envelope, error)
}

// Fence is a fencing token for one execution (spec §6, K9.4). Tokens only grow.
type Fence struct {
	ExecutionID string `json:"executionId"`
	Token       int64  `json:"token"`
}

// Fencer is the optional acquireFence (SPI 1.0.0). A store without it performs no fencing.
type Fencer interface {
	// AcquireFence makes a new current token for the execution, one never issued for that id before
	// (strictly greater, as recommended: I-STORE-100); every earlier token is fenced from then on.
	AcquireFence(ctx context.Context, executionID string) (Fence, error)
}

// ConditionalFencer is the optional acquireFenceIf (SPI 2.1.0).
type ConditionalFencer interface {
	// AcquireFenceIf acquires a new token only if the current token is expected (0: no token was ever
	// issued). Otherwise it returns a *FencedError carrying the current token and changes nothing.
	AcquireFenceIf(ctx context.Context, executionID string, expected int64) (Fence, error)
}

// Anchor is an observation anchor: an opaque value naming one observed state of an execution's log.
// Only equality is meaningful.
type Anchor string

// ConditionalAppender is the optional appendIfUnchanged (SPI 2.2.0; the incarnation rule since
// 2.3.0).
type ConditionalAppender interface {
	// Observe returns the anchor of the execution's current log.
	Observe(ctx context.Context, executionID string) (Anchor, error)
	// AppendIfUnchanged appends like Append, but only if the log is still in the state anchor names;
	// otherwise ErrConflict and nothing is written. Since SPI 2.3.0 an anchor observed before a
	// deleteExecution never matches after it, even if the new sequence-0 envelope is byte-identical.
	AppendIfUnchanged(ctx context.Context, executionID string, anchor Anchor, events []Envelope, opts AppendOptions) error
}

// Clock is the optional storeNow (SPI 2.4.0).
type Clock interface {
	// StoreNow is the store's own clock in epoch milliseconds (PostgreSQL: database time).
	StoreNow(ctx context.Context) (int64, error)
}

// ThroughDeleter is the optional deleteThrough (SPI 2.6.0).
type ThroughDeleter interface {
	// DeleteThrough atomically deletes every envelope of the execution with sequence <= through,
	// sequence 0 included, and nothing after it. The next free sequence does not change.
	DeleteThrough(ctx context.Context, executionID string, through int64) error
}

// Sealing says what a store seals (and therefore opens), spec §7 / ADR 0130 D7.
type Sealing struct {
	Cipher string   `json:"cipher"`
	Covers []string `json:"covers"` // e.g. "payload", "metadata"
}

// SealingReporter is the optional sealingCapability (SPI 2.5.0, reserved).
type SealingReporter interface {
	// SealingCapability returns nil when the store seals and opens nothing.
	SealingCapability(ctx context.Context) (*Sealing, error)
}

// PrefixCopier is the optional copyPrefix.
type PrefixCopier interface {
	// CopyPrefix atomically copies the envelopes of source with sequence <= through into target (which
	// must have no envelopes: ErrAlreadyExists otherwise), setting ExecutionID to target and keeping
	// every other field. through beyond source's last sequence is ErrInvalidArgument.
	CopyPrefix(ctx context.Context, source, target string, through int64) error
}

// ExecutionDeleter is the optional deleteExecution.
type ExecutionDeleter interface {
	// DeleteExecution removes every envelope of the execution; the next append starts a new
	// incarnation at sequence 0 and earlier fence tokens stay fenced. Deleting an unknown id is a no-op.
	DeleteExecution(ctx context.Context, executionID string) error
}

// Page is one page of an enumeration.
type Page struct {
	ExecutionIDs []string `json:"executionIds"`
	// Next is the cursor for the following page; "" means this was the last page.
	Next string `json:"next"`
}

// ExecutionLister is the optional listExecutionsPage (SPI 1.2.0).
type ExecutionLister interface {
	// ListExecutionsPage returns at most limit ids of executions that have at least one stored
	// envelope, strictly after cursor in byte order of the id ("" = from the start), ascending.
	// limit < 1 is ErrInvalidArgument.
	ListExecutionsPage(ctx context.Context, cursor string, limit int) (Page, error)
}

// EventStoreVersioned is how an EventStore states the SPI version it claims.
type EventStoreVersioned interface {
	EventStoreSpiVersion() string
}
