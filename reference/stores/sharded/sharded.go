package sharded

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"sort"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// EventStore spreads executions over its shards.
type EventStore struct {
	shards []spi.EventStore
}

// New returns a decorator over shards (at least one).
func New(shards ...spi.EventStore) (*EventStore, error) {
	if len(shards) == 0 {
		return nil, errors.New("sharded: no shards")
	}
	for i, s := range shards {
		if s == nil {
			return nil, fmt.Errorf("sharded: shard %d is nil", i)
		}
	}
	return &EventStore{shards: append([]spi.EventStore(nil), shards...)}, nil
}

// ShardOf returns the index of the shard that owns executionID.
func (s *EventStore) ShardOf(executionID string) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(executionID))
	return int(h.Sum64() % uint64(len(s.shards)))
}

func (s *EventStore) shard(id string) spi.EventStore { return s.shards[s.ShardOf(id)] }

// Implements reports an optional method as working only when every shard has it.
func (s *EventStore) Implements(method string) bool {
	for _, sh := range s.shards {
		if !spi.Has(manifest.SeamEventStore, sh, method) {
			return false
		}
	}
	return true
}

// EventStoreSpiVersion claims the lowest version any shard claims (a shard that states none counts
// as the current version).
func (s *EventStore) EventStoreSpiVersion() string {
	low, _ := manifest.ParseVersion(manifest.EventStoreSpiVersion)
	for _, sh := range s.shards {
		if c, ok := spi.ClaimedVersion(manifest.SeamEventStore, sh); ok {
			if v, err := manifest.ParseVersion(c); err == nil && v.Less(low) {
				low = v
			}
		}
	}
	return low.String()
}

func unsupported(method string) error {
	return fmt.Errorf("sharded: %s: a shard does not implement it: %w", method, spi.ErrUnsupported)
}

// Append implements spi.EventStore.
func (s *EventStore) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.shard(id).Append(ctx, id, events, opts)
}

// Read implements spi.EventStore.
func (s *EventStore) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return s.shard(id).Read(ctx, id)
}

// ReadRange implements spi.RangeReader.
func (s *EventStore) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	if r, ok := s.shard(id).(spi.RangeReader); ok && s.Implements(spi.MethodReadRange) {
		return r.ReadRange(ctx, id, from, to)
	}
	return nil, unsupported(spi.MethodReadRange)
}

// AcquireFence implements spi.Fencer.
func (s *EventStore) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	if f, ok := s.shard(id).(spi.Fencer); ok && s.Implements(spi.MethodAcquireFence) {
		return f.AcquireFence(ctx, id)
	}
	return spi.Fence{}, unsupported(spi.MethodAcquireFence)
}

// AcquireFenceIf implements spi.ConditionalFencer.
func (s *EventStore) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	if f, ok := s.shard(id).(spi.ConditionalFencer); ok && s.Implements(spi.MethodAcquireFenceIf) {
		return f.AcquireFenceIf(ctx, id, expected)
	}
	return spi.Fence{}, unsupported(spi.MethodAcquireFenceIf)
}

// Observe implements spi.ConditionalAppender.
func (s *EventStore) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	if c, ok := s.shard(id).(spi.ConditionalAppender); ok && s.Implements(spi.MethodAppendIfUnchanged) {
		return c.Observe(ctx, id)
	}
	return "", unsupported(spi.MethodAppendIfUnchanged)
}

// AppendIfUnchanged implements spi.ConditionalAppender.
func (s *EventStore) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	if c, ok := s.shard(id).(spi.ConditionalAppender); ok && s.Implements(spi.MethodAppendIfUnchanged) {
		return c.AppendIfUnchanged(ctx, id, a, events, opts)
	}
	return unsupported(spi.MethodAppendIfUnchanged)
}

// StoreNow implements spi.Clock with the first shard's clock.
func (s *EventStore) StoreNow(ctx context.Context) (int64, error) {
	if c, ok := s.shards[0].(spi.Clock); ok && s.Implements(spi.MethodStoreNow) {
		return c.StoreNow(ctx)
	}
	return 0, unsupported(spi.MethodStoreNow)
}

// DeleteThrough implements spi.ThroughDeleter.
func (s *EventStore) DeleteThrough(ctx context.Context, id string, through int64) error {
	if d, ok := s.shard(id).(spi.ThroughDeleter); ok && s.Implements(spi.MethodDeleteThrough) {
		return d.DeleteThrough(ctx, id, through)
	}
	return unsupported(spi.MethodDeleteThrough)
}

// SealingCapability implements spi.SealingReporter: a capability only when every shard reports the
// same one (spec §7); otherwise nil, which means it seals and opens nothing.
func (s *EventStore) SealingCapability(ctx context.Context) (*spi.Sealing, error) {
	var first *spi.Sealing
	for i, sh := range s.shards {
		r, ok := sh.(spi.SealingReporter)
		if !ok || !spi.Has(manifest.SeamEventStore, sh, spi.MethodSealingCapability) {
			return nil, nil
		}
		c, err := r.SealingCapability(ctx)
		if err != nil {
			return nil, fmt.Errorf("sharded: sealingCapability of shard %d: %w", i, err)
		}
		if c == nil {
			return nil, nil
		}
		if i == 0 {
			first = c
		} else if !sameSealing(first, c) {
			return nil, nil
		}
	}
	out := *first
	out.Covers = append([]string(nil), first.Covers...)
	return &out, nil
}

func sameSealing(a, b *spi.Sealing) bool {
	ca, cb := append([]string(nil), a.Covers...), append([]string(nil), b.Covers...)
	sort.Strings(ca)
	sort.Strings(cb)
	return a.Cipher == b.Cipher && reflect.DeepEqual(ca, cb)
}

// CopyPrefix implements spi.PrefixCopier; across shards the prefix is read and appended to the
// target in one batch (atomic on the target's shard).
func (s *EventStore) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	if !s.Implements(spi.MethodCopyPrefix) {
		return unsupported(spi.MethodCopyPrefix)
	}
	if source == "" || target == "" || source == target {
		return spi.Invalid("copyPrefix", "source/target", "must be two different non-empty ids")
	}
	src, dst := s.shard(source), s.shard(target)
	if src == dst {
		return src.(spi.PrefixCopier).CopyPrefix(ctx, source, target, through)
	}
	log, err := src.Read(ctx, source)
	if err != nil {
		return err
	}
	if through < 0 || int64(len(log)) <= through || log[0].Sequence != 0 || log[through].Sequence != through {
		return spi.Invalid("copyPrefix", "through", "%d is outside the stored source log", through)
	}
	prefix := make([]spi.Envelope, through+1)
	for i := range prefix {
		prefix[i] = log[i]
		prefix[i].ExecutionID = target
	}
	err = dst.Append(ctx, target, prefix, spi.AppendOptions{})
	if errors.Is(err, spi.ErrConflict) {
		return fmt.Errorf("sharded: copyPrefix into %q: %w", target, spi.ErrAlreadyExists)
	}
	return err
}

// DeleteExecution implements spi.ExecutionDeleter.
func (s *EventStore) DeleteExecution(ctx context.Context, id string) error {
	if d, ok := s.shard(id).(spi.ExecutionDeleter); ok && s.Implements(spi.MethodDeleteExecution) {
		return d.DeleteExecution(ctx, id)
	}
	return unsupported(spi.MethodDeleteExecution)
}

// ListExecutionsPage implements spi.ExecutionLister by merging one page of every shard.
func (s *EventStore) ListExecutionsPage(ctx context.Context, cursor string, limit int) (spi.Page, error) {
	if !s.Implements(spi.MethodListExecutionsPage) {
		return spi.Page{}, unsupported(spi.MethodListExecutionsPage)
	}
	if limit < 1 {
		return spi.Page{}, spi.Invalid("listExecutionsPage", "limit", "%d is below 1", limit)
	}
	var all []string
	more := false
	for i, sh := range s.shards {
		p, err := sh.(spi.ExecutionLister).ListExecutionsPage(ctx, cursor, limit)
		if err != nil {
			return spi.Page{}, fmt.Errorf("sharded: listExecutionsPage of shard %d: %w", i, err)
		}
		all = append(all, p.ExecutionIDs...)
		more = more || p.Next != ""
	}
	sort.Strings(all)
	if len(all) > limit {
		return spi.Page{ExecutionIDs: all[:limit], Next: all[limit-1]}, nil
	}
	if more && len(all) > 0 {
		return spi.Page{ExecutionIDs: all, Next: all[len(all)-1]}, nil
	}
	return spi.Page{ExecutionIDs: all}, nil
}
