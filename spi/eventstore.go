package spi

import "context"

// AppendOptions qualifies an append.
type AppendOptions struct {
	// Fence is a token from AcquireFence/AcquireFenceIf; 0 means the write is not fenced. A fenced
	// write whose token is not the execution's current token fails with ErrFenced and changes nothing.
	Fence int64
}

// EventStore is the event-log seam (spec §7), required part. Execution ids are opaque byte
// strings of up to MaxIDBytes: never folded, trimmed, normalised or cut, on every method
// (I-STORE-4, I-STORE-27, I-STORE-80). docs/spi.md states every rule; "recommended" below marks a
// choice of ours where the spec is silent (a certificate lists it, and only --strict or
// kits.Options.Strict holds a store to it).
type EventStore interface {
	// Append atomically appends events, all of execution executionID, whose sequences are dense and
	// ascending. The first sequence is the write's expectation: it must equal the next free sequence
	// of the execution (0 for a new or deleted one), otherwise nothing is written and ErrConflict is
	// returned (I-STORE-1). All or nothing, for writers and readers alike, wherever a bad envelope
	// stands in the batch (I-STORE-2, I-STORE-30, I-STORE-31). Payload and metadata are kept as the
	// same JSON value (I-STORE-3); the exact decimals of numbers a double cannot hold are recommended
	// (I-STORE-25). With a non-zero opts.Fence the append is fence-checked (ErrFenced when the token
	// is not current). A call wrong in several ways is refused as invalid argument, then fenced, then
	// conflict, and an empty batch is refused the same way when it is wrong otherwise (an empty id, a
	// stale token) and otherwise succeeds, writing nothing (recommended, I-STORE-50).
	Append(ctx context.Context, executionID string, events []Envelope, opts AppendOptions) error
	// Read returns every stored envelope of the execution in ascending sequence order, dense over
	// what is stored (after DeleteThrough the first is through+1); empty, not an error, for an
	// unknown execution.
	Read(ctx context.Context, executionID string) ([]Envelope, error)
}

// RangeReader is the optional readRange (SPI 1.0.0).
type RangeReader interface {
	// ReadRange returns the stored envelopes with from <= sequence < to, ascending. to < 0 means no
	// upper bound; to == from and a range past the tail give nothing (I-STORE-5). Recommended
	// (I-STORE-66): from < 0 is ErrInvalidArgument, an inverted range (0 <= to < from) gives nothing.
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
	// sequence 0 included, and nothing after it; readers see the log before or after it, never part
	// of it. The next free sequence does not change (I-STORE-10, I-STORE-31). Recommended
	// (I-STORE-68): a negative through is ErrInvalidArgument.
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
	// every other field value-exact, never re-encoded (I-STORE-11, I-STORE-3). through beyond
	// source's last sequence is ErrInvalidArgument. Recommended (I-STORE-52): a target whose log was
	// ever written, even emptied by DeleteThrough, is ErrAlreadyExists, and argument errors come first.
	CopyPrefix(ctx context.Context, source, target string, through int64) error
}

// ExecutionDeleter is the optional deleteExecution.
type ExecutionDeleter interface {
	// DeleteExecution removes every envelope of the execution, and only of that id (an id that
	// extends it is another execution); the next append starts a new incarnation at sequence 0 and
	// every fence token acquired before is stale, also when the id was fenced but never written
	// (I-STORE-12, I-STORE-51, I-STORE-82). Recommended (I-STORE-71): deleting an id with nothing
	// stored succeeds and changes nothing (ErrNotFound is allowed).
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
	// ListExecutionsPage returns at most limit ids of stored executions, strictly after cursor
	// ("" = from the start), ascending; every execution present throughout an enumeration is listed
	// exactly once (I-STORE-13). Recommended: ascending is byte order (I-STORE-28); only executions
	// with at least one stored envelope are listed, and limit < 1 is ErrInvalidArgument (I-STORE-69).
	ListExecutionsPage(ctx context.Context, cursor string, limit int) (Page, error)
}

// EventStoreVersioned is how an EventStore states the SPI version it claims.
type EventStoreVersioned interface {
	EventStoreSpiVersion() string
}
