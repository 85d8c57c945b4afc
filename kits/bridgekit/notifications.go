package bridgekit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// A notification (a request without an id) is never executed (I-BRIDGE-10). The store rules a
// bridge author meets at the edges (which refusal wins, empty batches, deleteExecution and the
// fence, copyPrefix onto a trimmed target, archive batches, parentless branches) are store
// semantics and are checked by the store kits, whatever the route.

func probeEnv(x string, seq int64) spi.Envelope {
	return spi.Envelope{ID: fmt.Sprintf("%s#%d", x, seq), WorkflowID: "wf-bridge", ExecutionID: x, EventType: "BRIDGE_PROBE",
		Sequence: seq, Timestamp: 1_700_000_000_000 + seq, Payload: json.RawMessage(`0`)}
}

// invalidCodes are the codes an invalid argument may arrive as (the store's own refusal, or the
// bridge refusing params that break the schema).
var invalidCodes = []int{bridge.CodeInvalidArgument, bridge.CodeInvalidParams}

func callErr[T any](_ T, err error) error { return err }

// bkNotifications: a request without an id is never executed (I-BRIDGE-10), on every served seam
// whose writes certify can read back: each write is posted as a notification, then looked for.
func bkNotifications(ctx context.Context, c *Case) error {
	probes := notificationProbes(ctx, c)
	if len(probes) == 0 {
		return c.Skip("the bridge serves no seam whose writes certify can read back (a dispatcher without claim included)")
	}
	for _, p := range probes {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, p.method, p.params)
		if _, _, err := c.Store.PostRaw(ctx, []byte(body)); err != nil {
			return err
		}
		executed, err := p.executed()
		if err != nil {
			if perr := protocolBreach(c, p.method, err); perr != nil {
				return perr
			}
			return c.Failf(p.method, "read back after a notification", err, "an answer")
		}
		if executed != "" {
			return c.Failf("POST", body, "the call was executed ("+executed+")", "no effect: a notification is never executed")
		}
	}
	return nil
}

// notificationProbe is a write posted as a notification and a read that says whether it ran.
type notificationProbe struct {
	method   string
	params   []byte
	executed func() (string, error) // "" when the write had no effect
}

func notificationProbes(ctx context.Context, c *Case) []notificationProbe {
	hs := c.Store.Handshake()
	params := func(v any) []byte { b, _ := json.Marshal(v); return b }
	var out []notificationProbe
	if es := c.Store.EventStore(); es != nil {
		x := c.ExecID("notification")
		out = append(out, notificationProbe{"eventStore.append", params(map[string]any{"executionId": x, "events": []spi.Envelope{probeEnv(x, 0)}}), func() (string, error) {
			got, err := es.Read(ctx, x)
			return countIf(len(got), "envelopes stored"), err
		}})
	}
	if ss := c.Store.SnapshotStore(); ss != nil {
		x := c.ExecID("notification-snap")
		out = append(out, notificationProbe{"snapshotStore.save", params(map[string]any{"snapshot": spi.Snapshot{ExecutionID: x, Sequence: 0, State: json.RawMessage(`{}`)}}), func() (string, error) {
			_, err := ss.LoadLatest(ctx, x)
			return notFoundIs(err, "a snapshot saved")
		}})
	}
	if as := c.Store.ArchiveStore(); as != nil {
		x := c.ExecID("notification-archive")
		out = append(out, notificationProbe{"archiveStore.append", params(map[string]any{"executionId": x, "events": []spi.Envelope{probeEnv(x, 0)}}), func() (string, error) {
			got, err := as.Read(ctx, x)
			return countIf(len(got), "envelopes archived"), err
		}})
	}
	if br := c.Store.BranchRegistry(); br != nil {
		x := c.ExecID("notification-branch")
		out = append(out, notificationProbe{"branchRegistry.register", params(map[string]any{"branch": spi.Branch{ID: x, ParentID: x + "-parent", ForkSequence: 0}}), func() (string, error) {
			_, err := br.Get(ctx, x)
			return notFoundIs(err, "the branch registered")
		}})
	}
	if cs := c.Store.ContentStore(); cs != nil {
		data := []byte(c.ExecID("notification-content"))
		out = append(out, notificationProbe{"contentStore.put", params(map[string]any{"data": data}), func() (string, error) {
			_, err := cs.Get(ctx, spi.DigestOf(data))
			return notFoundIs(err, "the content stored")
		}})
	}
	if ds := c.Store.DurableStateStore(); ds != nil {
		k := c.ExecID("notification-state")
		out = append(out, notificationProbe{"durableStateStore.set", params(map[string]any{"key": k, "value": 1}), func() (string, error) {
			_, err := ds.Get(ctx, k)
			return notFoundIs(err, "the key set")
		}})
	}
	if rm := c.Store.ReadModelStore(); rm != nil {
		m := c.ExecID("notification-model")
		out = append(out, notificationProbe{"readModelStore.upsert", params(map[string]any{"model": m, "id": "x", "doc": map[string]any{}}), func() (string, error) {
			p, err := rm.Query(ctx, m, spi.ReadModelQuery{Limit: 10})
			return countIf(len(p.Docs), "documents stored"), err
		}})
	}
	if d := c.Store.Dispatcher(); d != nil && hs.Declares(manifest.SeamExecutionDispatcher, spi.MethodClaim) {
		if ts, err := d.Targets(ctx); err == nil && len(ts) > 0 {
			x := c.ExecID("notification-dispatch")
			out = append(out, notificationProbe{"dispatcher.dispatch", params(map[string]any{"package": spi.ExecutionPackage{ExecutionID: x, FlowID: "kit-flow"}}), func() (string, error) {
				return claimedAmong(ctx, c, d, ts, x)
			}})
		}
	}
	return out
}

func countIf(n int, what string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s", n, what)
}

// notFoundIs reads a lookup's error: not found means the write had no effect.
func notFoundIs(err error, what string) (string, error) {
	switch {
	case err == nil:
		return what, nil
	case errors.Is(err, spi.ErrNotFound):
		return "", nil
	}
	return "", err
}

// claimedAmong claims (leases of a minute) until it meets package x, which it acks, or nothing
// deliverable is left, and says whether x was there.
func claimedAmong(ctx context.Context, c *Case, d *bridge.Dispatcher, ts []string, x string) (string, error) {
	for range 32 {
		l, ok, err := d.Claim(ctx, spi.ClaimRequest{Worker: "kit-notification", Targets: ts, TTL: time.Minute})
		if err != nil || !ok {
			return "", err
		}
		if l.Package.ExecutionID == x {
			_ = d.Ack(ctx, l)
			return "the package was queued and delivered", nil
		}
	}
	return "", nil
}
