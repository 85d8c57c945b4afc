package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// EventStore returns the bridge's EventStore, or nil when the handshake does not serve that seam.
// The value has every Go method of the seam and implements spi.Capabilities and
// spi.EventStoreVersioned from the handshake; use spi.Has before an optional method.
func (c *Client) EventStore() *EventStore {
	if !c.serves(manifest.SeamEventStore) {
		return nil
	}
	return &EventStore{c: c}
}

// SnapshotStore returns the bridge's SnapshotStore, or nil when it is not served.
func (c *Client) SnapshotStore() *SnapshotStore {
	if !c.serves(manifest.SeamSnapshotStore) {
		return nil
	}
	return &SnapshotStore{c: c}
}

// ArchiveStore returns the bridge's ArchiveStore, or nil when it is not served.
func (c *Client) ArchiveStore() *ArchiveStore {
	if !c.serves(manifest.SeamArchiveStore) {
		return nil
	}
	return &ArchiveStore{c: c}
}

// BranchRegistry returns the bridge's BranchRegistry, or nil when it is not served.
func (c *Client) BranchRegistry() *BranchRegistry {
	if !c.serves(manifest.SeamBranchRegistry) {
		return nil
	}
	return &BranchRegistry{c: c}
}

func unsupported(seam, method string) error {
	return fmt.Errorf("%s.%s: the bridge's handshake does not declare it: %w", seam, method, spi.ErrUnsupported)
}

// checkWire refuses envelopes that cannot cross a JSON wire (payload or metadata that is not JSON)
// as invalid arguments, without a call (I-BRIDGE-4).
func checkWire(op string, events []spi.Envelope) error {
	for i, e := range events {
		if len(e.Payload) == 0 || !json.Valid(e.Payload) {
			return spi.Invalid(op, "events", "envelope %d payload is not valid JSON, so it cannot cross the bridge", i)
		}
		if len(e.Metadata) > 0 && !json.Valid(e.Metadata) {
			return spi.Invalid(op, "events", "envelope %d metadata is not valid JSON, so it cannot cross the bridge", i)
		}
	}
	return nil
}

// EventStore is the client side of the EventStore seam.
type EventStore struct{ c *Client }

var (
	_ spi.EventStore          = (*EventStore)(nil)
	_ spi.RangeReader         = (*EventStore)(nil)
	_ spi.Fencer              = (*EventStore)(nil)
	_ spi.ConditionalFencer   = (*EventStore)(nil)
	_ spi.ConditionalAppender = (*EventStore)(nil)
	_ spi.Clock               = (*EventStore)(nil)
	_ spi.ThroughDeleter      = (*EventStore)(nil)
	_ spi.SealingReporter     = (*EventStore)(nil)
	_ spi.PrefixCopier        = (*EventStore)(nil)
	_ spi.ExecutionDeleter    = (*EventStore)(nil)
	_ spi.ExecutionLister     = (*EventStore)(nil)
	_ spi.Capabilities        = (*EventStore)(nil)
	_ spi.EventStoreVersioned = (*EventStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *EventStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamEventStore, method)
}

// EventStoreSpiVersion is the version the handshake claims.
func (s *EventStore) EventStoreSpiVersion() string { return s.c.claimed(manifest.SeamEventStore) }

// Client is the bridge client behind the store.
func (s *EventStore) Client() *Client { return s.c }

func (s *EventStore) need(method string) error {
	if !s.Implements(method) {
		return unsupported("eventStore", method)
	}
	return nil
}

func (s *EventStore) Append(ctx context.Context, executionID string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := checkWire("append", events); err != nil {
		return err
	}
	return s.c.Call(ctx, "eventStore.append", appendParams{executionID, nonNilEnvs(events), opts.Fence}, nil)
}

func (s *EventStore) Read(ctx context.Context, executionID string) ([]spi.Envelope, error) {
	var out fold.Envelopes
	err := s.c.Call(ctx, "eventStore.read", execParams{executionID}, &out)
	return out, err
}

func (s *EventStore) ReadRange(ctx context.Context, executionID string, from, to int64) ([]spi.Envelope, error) {
	if err := s.need(spi.MethodReadRange); err != nil {
		return nil, err
	}
	var out fold.Envelopes
	err := s.c.Call(ctx, "eventStore.readRange", readRangeParams{executionID, from, to}, &out)
	return out, err
}

func (s *EventStore) AcquireFence(ctx context.Context, executionID string) (spi.Fence, error) {
	var f spi.Fence
	if err := s.need(spi.MethodAcquireFence); err != nil {
		return f, err
	}
	err := s.c.Call(ctx, "eventStore.acquireFence", execParams{executionID}, &f)
	return f, err
}

func (s *EventStore) AcquireFenceIf(ctx context.Context, executionID string, expected int64) (spi.Fence, error) {
	var f spi.Fence
	if err := s.need(spi.MethodAcquireFenceIf); err != nil {
		return f, err
	}
	err := s.c.Call(ctx, "eventStore.acquireFenceIf", fenceIfParams{executionID, expected}, &f)
	return f, err
}

func (s *EventStore) Observe(ctx context.Context, executionID string) (spi.Anchor, error) {
	if err := s.need(spi.MethodAppendIfUnchanged); err != nil {
		return "", err
	}
	var r anchorResult
	err := s.c.Call(ctx, "eventStore.observe", execParams{executionID}, &r)
	return spi.Anchor(r.Anchor), err
}

func (s *EventStore) AppendIfUnchanged(ctx context.Context, executionID string, anchor spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := s.need(spi.MethodAppendIfUnchanged); err != nil {
		return err
	}
	if err := checkWire("appendIfUnchanged", events); err != nil {
		return err
	}
	return s.c.Call(ctx, "eventStore.appendIfUnchanged", appendIfParams{executionID, string(anchor), nonNilEnvs(events), opts.Fence}, nil)
}

func (s *EventStore) StoreNow(ctx context.Context) (int64, error) {
	if err := s.need(spi.MethodStoreNow); err != nil {
		return 0, err
	}
	var r nowResult
	err := s.c.Call(ctx, "eventStore.storeNow", noParams{}, &r)
	return r.Now, err
}

func (s *EventStore) DeleteThrough(ctx context.Context, executionID string, through int64) error {
	if err := s.need(spi.MethodDeleteThrough); err != nil {
		return err
	}
	return s.c.Call(ctx, "eventStore.deleteThrough", throughParams{executionID, through}, nil)
}

func (s *EventStore) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	if err := s.need(spi.MethodSealingCapability); err != nil {
		return nil, err
	}
	var out *spi.Sealing
	err := s.c.Call(ctx, "eventStore.sealingCapability", noParams{}, &out)
	return out, err
}

func (s *EventStore) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	if err := s.need(spi.MethodCopyPrefix); err != nil {
		return err
	}
	return s.c.Call(ctx, "eventStore.copyPrefix", copyPrefixParams{source, target, through}, nil)
}

func (s *EventStore) DeleteExecution(ctx context.Context, executionID string) error {
	if err := s.need(spi.MethodDeleteExecution); err != nil {
		return err
	}
	return s.c.Call(ctx, "eventStore.deleteExecution", execParams{executionID}, nil)
}

func (s *EventStore) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	var p spi.Page
	if err := s.need(spi.MethodListExecutionsPage); err != nil {
		return p, err
	}
	err := s.c.Call(ctx, "eventStore.listExecutionsPage", listPageParams{cursor, limit}, &p)
	return p, err
}

func nonNilEnvs(e []spi.Envelope) []spi.Envelope {
	if e == nil {
		return []spi.Envelope{}
	}
	return e
}

// SnapshotStore is the client side of the SnapshotStore seam.
type SnapshotStore struct{ c *Client }

var (
	_ spi.SnapshotStore          = (*SnapshotStore)(nil)
	_ spi.SnapshotDeleter        = (*SnapshotStore)(nil)
	_ spi.SealedLoader           = (*SnapshotStore)(nil)
	_ spi.SnapshotPruner         = (*SnapshotStore)(nil)
	_ spi.SequenceLister         = (*SnapshotStore)(nil)
	_ spi.Capabilities           = (*SnapshotStore)(nil)
	_ spi.SnapshotStoreVersioned = (*SnapshotStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *SnapshotStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamSnapshotStore, method)
}

// SnapshotStoreSpiVersion is the version the handshake claims.
func (s *SnapshotStore) SnapshotStoreSpiVersion() string {
	return s.c.claimed(manifest.SeamSnapshotStore)
}

func (s *SnapshotStore) need(method string) error {
	if !s.Implements(method) {
		return unsupported("snapshotStore", method)
	}
	return nil
}

func (s *SnapshotStore) Save(ctx context.Context, snap spi.Snapshot) error {
	if len(snap.State) == 0 || !json.Valid(snap.State) {
		return spi.Invalid("save", "state", "not valid JSON, so it cannot cross the bridge")
	}
	return s.c.Call(ctx, "snapshotStore.save", saveParams{snap}, nil)
}

func (s *SnapshotStore) LoadLatest(ctx context.Context, executionID string) (spi.Snapshot, error) {
	var out spi.Snapshot
	err := s.c.Call(ctx, "snapshotStore.loadLatest", execParams{executionID}, &out)
	return out, err
}

func (s *SnapshotStore) LoadLatestSealed(ctx context.Context, executionID string) (spi.Snapshot, error) {
	var out spi.Snapshot
	if err := s.need(spi.MethodLoadLatestSealed); err != nil {
		return out, err
	}
	err := s.c.Call(ctx, "snapshotStore.loadLatestSealed", execParams{executionID}, &out)
	return out, err
}

func (s *SnapshotStore) DeleteExecution(ctx context.Context, executionID string) error {
	if err := s.need(spi.MethodDeleteExecution); err != nil {
		return err
	}
	return s.c.Call(ctx, "snapshotStore.deleteExecution", execParams{executionID}, nil)
}

func (s *SnapshotStore) PruneSnapshots(ctx context.Context, executionID string, r spi.SeqRange) ([]int64, error) {
	if err := s.need(spi.MethodPruneSnapshots); err != nil {
		return nil, err
	}
	var out []int64
	err := s.c.Call(ctx, "snapshotStore.pruneSnapshots", rangeParams{executionID, r.From, r.Through}, &out)
	return out, err
}

func (s *SnapshotStore) ListSequences(ctx context.Context, executionID string) ([]int64, error) {
	if err := s.need(spi.MethodListSequences); err != nil {
		return nil, err
	}
	var out []int64
	err := s.c.Call(ctx, "snapshotStore.listSequences", execParams{executionID}, &out)
	return out, err
}

// ArchiveStore is the client side of the ArchiveStore seam.
type ArchiveStore struct{ c *Client }

var (
	_ spi.ArchiveStore          = (*ArchiveStore)(nil)
	_ spi.ArchiveDeleter        = (*ArchiveStore)(nil)
	_ spi.SegmentReplacer       = (*ArchiveStore)(nil)
	_ spi.Capabilities          = (*ArchiveStore)(nil)
	_ spi.ArchiveStoreVersioned = (*ArchiveStore)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *ArchiveStore) Implements(method string) bool {
	return s.c.declares(manifest.SeamArchiveStore, method)
}

// ArchiveStoreSpiVersion is the version the handshake claims.
func (s *ArchiveStore) ArchiveStoreSpiVersion() string { return s.c.claimed(manifest.SeamArchiveStore) }

func (s *ArchiveStore) Append(ctx context.Context, executionID string, events []spi.Envelope) error {
	if err := checkWire("archive.append", events); err != nil {
		return err
	}
	return s.c.Call(ctx, "archiveStore.append", archiveAppendParams{executionID, nonNilEnvs(events)}, nil)
}

func (s *ArchiveStore) Read(ctx context.Context, executionID string) ([]spi.Envelope, error) {
	var out fold.Envelopes
	err := s.c.Call(ctx, "archiveStore.read", execParams{executionID}, &out)
	return out, err
}

func (s *ArchiveStore) DeleteExecution(ctx context.Context, executionID string) error {
	if !s.Implements(spi.MethodDeleteExecution) {
		return unsupported("archiveStore", spi.MethodDeleteExecution)
	}
	return s.c.Call(ctx, "archiveStore.deleteExecution", execParams{executionID}, nil)
}

func (s *ArchiveStore) ReplaceSegments(ctx context.Context, executionID string, r spi.SeqRange, events []spi.Envelope) error {
	if !s.Implements(spi.MethodReplaceSegments) {
		return unsupported("archiveStore", spi.MethodReplaceSegments)
	}
	if err := checkWire("replaceSegments", events); err != nil {
		return err
	}
	return s.c.Call(ctx, "archiveStore.replaceSegments", replaceParams{executionID, r.From, r.Through, nonNilEnvs(events)}, nil)
}

// BranchRegistry is the client side of the BranchRegistry seam.
type BranchRegistry struct{ c *Client }

var (
	_ spi.BranchRegistry          = (*BranchRegistry)(nil)
	_ spi.Capabilities            = (*BranchRegistry)(nil)
	_ spi.BranchRegistryVersioned = (*BranchRegistry)(nil)
)

// Implements reports whether the handshake declares the method.
func (s *BranchRegistry) Implements(method string) bool {
	return s.c.declares(manifest.SeamBranchRegistry, method)
}

// BranchRegistrySpiVersion is the version the handshake claims.
func (s *BranchRegistry) BranchRegistrySpiVersion() string {
	return s.c.claimed(manifest.SeamBranchRegistry)
}

func (s *BranchRegistry) Register(ctx context.Context, b spi.Branch) error {
	if len(b.Metadata) > 0 && !json.Valid(b.Metadata) {
		return spi.Invalid("register", "metadata", "not valid JSON, so it cannot cross the bridge")
	}
	return s.c.Call(ctx, "branchRegistry.register", registerParams{b}, nil)
}

func (s *BranchRegistry) Get(ctx context.Context, id string) (spi.Branch, error) {
	var out spi.Branch
	err := s.c.Call(ctx, "branchRegistry.get", idParams{id}, &out)
	return out, err
}

func (s *BranchRegistry) ListChildren(ctx context.Context, parentID string) ([]spi.Branch, error) {
	var out []spi.Branch
	err := s.c.Call(ctx, "branchRegistry.listChildren", parentParams{parentID}, &out)
	return out, err
}
