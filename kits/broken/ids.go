package broken

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/spi"
)

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

func lowerCase(id string) string    { return strings.ToLower(id) }
func trimTrailing(id string) string { return strings.TrimRight(id, " ") }
func composeAcute(id string) string { return strings.ReplaceAll(id, "e\u0301", "\u00e9") }
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// --- snapshots keyed snap/<id><sep><seq>: loadLatest scans the key prefix <id><sep>, so it also
// sees the snapshots of every id that extends it (after sep, when sep is not empty).
type prefixScanSnapshots struct {
	ss
	sep string
	mu  *sync.Mutex
	ids map[string]bool
}

func (s prefixScanSnapshots) Save(ctx context.Context, sn spi.Snapshot) error {
	s.mu.Lock()
	s.ids[sn.ExecutionID] = true
	s.mu.Unlock()
	return s.ss.Save(ctx, sn)
}

func (s prefixScanSnapshots) LoadLatest(ctx context.Context, id string) (spi.Snapshot, error) {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	best, found := spi.Snapshot{}, false
	for _, k := range keys {
		if k != id && !strings.HasPrefix(k, id+s.sep) {
			continue
		}
		if sn, err := s.ss.LoadLatest(ctx, k); err == nil && (!found || sn.Sequence > best.Sequence) {
			best, found = sn, true
		}
	}
	if !found {
		return best, spi.ErrNotFound
	}
	best.ExecutionID = id
	return best, nil
}

// --- archive keyed arch/<id><sep><seq>: read scans the key prefix <id><sep>.
type prefixScanArchive struct {
	as
	sep string
	mu  *sync.Mutex
	ids map[string]bool
}

func (s prefixScanArchive) Append(ctx context.Context, id string, events []spi.Envelope) error {
	s.mu.Lock()
	s.ids[id] = true
	s.mu.Unlock()
	return s.as.Append(ctx, id, events)
}

func (s prefixScanArchive) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	s.mu.Lock()
	keys := sortedKeys(s.ids)
	s.mu.Unlock()
	var out []spi.Envelope
	for _, k := range keys {
		if k == id || strings.HasPrefix(k, id+s.sep) {
			got, err := s.as.Read(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Sequence < out[j].Sequence })
	return out, nil
}

// --- listChildren matches the parent with LIKE '<parent>%' and drops only paths under
// '<parent>/', so children of parents whose id extends it are listed too.
type childrenLikePrefix struct {
	br
	mu      *sync.Mutex
	parents map[string]bool
}

func (r childrenLikePrefix) Register(ctx context.Context, b spi.Branch) error {
	err := r.br.Register(ctx, b)
	if err == nil {
		r.mu.Lock()
		r.parents[b.ParentID] = true
		r.mu.Unlock()
	}
	return err
}

func (r childrenLikePrefix) ListChildren(ctx context.Context, parent string) ([]spi.Branch, error) {
	r.mu.Lock()
	keys := sortedKeys(r.parents)
	r.mu.Unlock()
	out := []spi.Branch{}
	for _, k := range keys {
		if k == parent || (strings.HasPrefix(k, parent) && !strings.HasPrefix(k, parent+"/")) {
			got, err := r.br.ListChildren(ctx, k)
			if err != nil {
				return nil, err
			}
			out = append(out, got...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// mergeQuarantine keys every control stream __loom_quarantine__:<chainId> by the bare prefix, as a
// store that treats the reserved prefix as one stream would.
func mergeQuarantine(id string) string {
	if strings.HasPrefix(id, "__loom_quarantine__:") {
		return "__loom_quarantine__:"
	}
	return id
}
