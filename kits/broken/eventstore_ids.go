package broken

import (
	"context"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// --- ids are truncated to 255 bytes, so long ids that share a prefix share a log.
type truncatedIDs struct{ es }

func trunc(id string) string {
	if len(id) > 255 {
		return id[:255]
	}
	return id
}

func (s truncatedIDs) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	if err := spi.ValidateBatch("append", id, events); err != nil {
		return err
	}
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		e.ExecutionID = trunc(id)
		out[i] = e
	}
	return s.es.Append(ctx, trunc(id), out, opts)
}

func (s truncatedIDs) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, trunc(id))
	for i := range got {
		got[i].ExecutionID = id
	}
	return got, err
}

// --- reads leak across executions: an empty id answers with any execution it prefixes.
type prefixLeak struct{ es }

func (s prefixLeak) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, id)
	if err != nil || len(got) > 0 {
		return got, err
	}
	page, _ := s.es.ListExecutionsPage(ctx, "", 1_000_000)
	for _, other := range page.ExecutionIDs {
		if strings.HasPrefix(other, id) {
			return s.es.Read(ctx, other)
		}
	}
	return got, nil
}

// --- deleteExecution matches ids case-insensitively (DELETE … WHERE id ILIKE $1).
type deleteFoldsCase struct{ es }

func (s deleteFoldsCase) DeleteExecution(ctx context.Context, id string) error {
	ids, err := allExecutions(ctx, s.es)
	if err != nil {
		return err
	}
	for _, x := range ids {
		if strings.EqualFold(x, id) {
			if err := s.es.DeleteExecution(ctx, x); err != nil {
				return err
			}
		}
	}
	return s.es.DeleteExecution(ctx, id)
}

// --- execution ids mapped to a storage key (a case-insensitive collation, a trimmed CHAR column, a
// normalising layer), so ids that differ only there share one log.
type keyedIDs struct {
	es
	key func(string) string
}

func (s keyedIDs) rekey(id string, events []spi.Envelope) []spi.Envelope {
	out := make([]spi.Envelope, len(events))
	for i, e := range events {
		if e.ExecutionID == id {
			e.ExecutionID = s.key(id)
		}
		out[i] = e
	}
	return out
}

func (s keyedIDs) Append(ctx context.Context, id string, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.es.Append(ctx, s.key(id), s.rekey(id, events), opts)
}

func (s keyedIDs) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	got, err := s.es.Read(ctx, s.key(id))
	for i := range got {
		got[i].ExecutionID = id
	}
	return got, err
}

// mergeQuarantine keys every control stream __loom_quarantine__:<chainId> by the bare prefix, as a
// store that treats the reserved prefix as one stream would.
func mergeQuarantine(id string) string {
	if strings.HasPrefix(id, "__loom_quarantine__:") {
		return "__loom_quarantine__:"
	}
	return id
}

// --- rows keyed <id><sep><sequence>: read scans the key prefix <id><sep>, so it also returns the
// log of every id that extends the id after sep.
type delimitedScanES struct {
	es
	sep string
}

func (s delimitedScanES) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	out, err := s.es.Read(ctx, id)
	if err != nil {
		return nil, err
	}
	keys, err := allExecutions(ctx, s.es)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if strings.HasPrefix(k, id+s.sep) {
			got, err := s.es.Read(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}

// --- execution ids mapped to a storage key on every method (a store that builds key names by
// substituting characters its key language lacks): ids that map to one key are one execution
// everywhere, consistently, so only a pair that differs where the mapping folds shows it.
type keyedEverywhere struct{ keyedIDs }

func (s keyedEverywhere) ReadRange(ctx context.Context, id string, from, to int64) ([]spi.Envelope, error) {
	got, err := s.es.ReadRange(ctx, s.key(id), from, to)
	for i := range got {
		got[i].ExecutionID = id
	}
	return got, err
}

func (s keyedEverywhere) AcquireFence(ctx context.Context, id string) (spi.Fence, error) {
	f, err := s.es.AcquireFence(ctx, s.key(id))
	f.ExecutionID = id
	return f, err
}

func (s keyedEverywhere) AcquireFenceIf(ctx context.Context, id string, expected int64) (spi.Fence, error) {
	f, err := s.es.AcquireFenceIf(ctx, s.key(id), expected)
	f.ExecutionID = id
	return f, err
}

func (s keyedEverywhere) Observe(ctx context.Context, id string) (spi.Anchor, error) {
	return s.es.Observe(ctx, s.key(id))
}

func (s keyedEverywhere) AppendIfUnchanged(ctx context.Context, id string, a spi.Anchor, events []spi.Envelope, opts spi.AppendOptions) error {
	return s.es.AppendIfUnchanged(ctx, s.key(id), a, s.rekey(id, events), opts)
}

func (s keyedEverywhere) DeleteThrough(ctx context.Context, id string, through int64) error {
	return s.es.DeleteThrough(ctx, s.key(id), through)
}

func (s keyedEverywhere) CopyPrefix(ctx context.Context, source, target string, through int64) error {
	return s.es.CopyPrefix(ctx, s.key(source), s.key(target), through)
}

func (s keyedEverywhere) DeleteExecution(ctx context.Context, id string) error {
	return s.es.DeleteExecution(ctx, s.key(id))
}
