package certify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// The edge cases a bridge author meets and the prose of docs/spi.md ("Edge cases") and
// docs/bridge.md decides: which refusal wins when a call is wrong in several ways, what empty
// batches, negative sequences, deleteExecution, copyPrefix after deleteThrough, archive batches
// and parentless branches do, and that a notification is never executed.

func probeEnv(x string, seq int64) spi.Envelope {
	return spi.Envelope{ID: fmt.Sprintf("%s#%d", x, seq), WorkflowID: "wf-bridge", ExecutionID: x, EventType: "BRIDGE_PROBE",
		Sequence: seq, Timestamp: 1_700_000_000_000 + seq, Payload: json.RawMessage(`0`)}
}

// invalidCodes are the codes an invalid argument may arrive as (the store's own refusal, or the
// bridge refusing params that break the schema).
var invalidCodes = []int{bridge.CodeInvalidArgument, bridge.CodeInvalidParams}

// bkRefusalOrder: a call wrong in several ways gets invalid argument first, on every served seam
// that has a refusal depending on state (I-STORE-50 on the event log, I-STORE-56 elsewhere).
func bkRefusalOrder(ctx context.Context, c *BridgeCase) error {
	ran := false
	for _, part := range []func(context.Context, *BridgeCase) (bool, error){refusalOrderEvents, refusalOrderState, refusalOrderContent, refusalOrderDispatcher} {
		did, err := part(ctx, c)
		if err != nil {
			return err
		}
		ran = ran || did
	}
	if !ran {
		return c.Skip("the bridge serves no seam with a refusal that depends on the store's state (EventStore, DurableStateStore, ContentStore, ExecutionDispatcher)")
	}
	return nil
}

// refusalOrderEvents: invalid argument, then fenced, then conflict (I-STORE-50); empty batches are
// refused the same way and otherwise write nothing; a negative sequence is invalid, not a conflict.
func refusalOrderEvents(ctx context.Context, c *BridgeCase) (bool, error) {
	es := c.Store.EventStore()
	if es == nil {
		return false, nil
	}
	hs := c.Store.Handshake()
	x := c.ExecID("order")
	if err := es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{}); err != nil {
		return true, c.Failf("eventStore.append", fmt.Sprintf("%q, [seq 0]", x), err, "nil")
	}
	neg := probeEnv(x, -1)
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq -1]", x),
		es.Append(ctx, x, []spi.Envelope{neg}, spi.AppendOptions{}), invalidCodes...); err != nil {
		return true, err
	}
	if err := wantCode(c, "eventStore.append", `"", [] (empty batch, empty id)`,
		es.Append(ctx, "", []spi.Envelope{}, spi.AppendOptions{}), invalidCodes...); err != nil {
		return true, err
	}
	if err := es.Append(ctx, x, []spi.Envelope{}, spi.AppendOptions{}); err != nil {
		return true, c.Failf("eventStore.append", fmt.Sprintf("%q, [] (empty batch)", x), err, "nil, nothing written")
	}
	if !hs.Declares(manifest.SeamEventStore, spi.MethodAcquireFence) {
		return true, nil
	}
	stale, err1 := es.AcquireFence(ctx, x)
	cur, err2 := es.AcquireFence(ctx, x)
	if err1 != nil || err2 != nil {
		return true, c.Failf("eventStore.acquireFence", fmt.Sprintf("%q twice", x), fmt.Sprint(err1, err2), "two tokens")
	}
	// Wrong in three ways: negative sequence, stale fence, taken sequence: invalid wins.
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq -1], stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{neg}, spi.AppendOptions{Fence: stale.Token}), invalidCodes...); err != nil {
		return true, err
	}
	// Stale fence and a taken sequence: fenced wins over the conflict.
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0] (taken), stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: stale.Token}), bridge.CodeFenced); err != nil {
		return true, err
	}
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [] (empty batch), stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{}, spi.AppendOptions{Fence: stale.Token}), bridge.CodeFenced); err != nil {
		return true, err
	}
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0] (taken), current fence %d", x, cur.Token),
		es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: cur.Token}), bridge.CodeConflict); err != nil {
		return true, err
	}
	got, err := es.Read(ctx, x)
	if err != nil || len(got) != 1 {
		return true, c.Failf("eventStore.read", fmt.Sprintf("%q after the refused appends", x), fmt.Sprintf("%d envelopes (%v)", len(got), err), "the one envelope appended first")
	}
	return true, nil
}

// refusalOrderState: a durable-state write with an empty key and a version condition that does not
// hold is an invalid argument, not a conflict (I-STORE-56), and changes nothing.
func refusalOrderState(ctx context.Context, c *BridgeCase) (bool, error) {
	ds := c.Store.DurableStateStore()
	if ds == nil {
		return false, nil
	}
	if err := wantCode(c, "durableStateStore.set", `"", 1, ifVersion 7 (empty key, condition not holding)`,
		callErr(ds.Set(ctx, "", json.RawMessage(`1`), spi.IfVersion(7))), invalidCodes...); err != nil {
		return true, err
	}
	if err := wantCode(c, "durableStateStore.delete", `"", ifVersion 7 (empty key, condition not holding)`,
		ds.Delete(ctx, "", spi.IfVersion(7)), invalidCodes...); err != nil {
		return true, err
	}
	k := c.ExecID("order-state")
	if err := wantCode(c, "durableStateStore.set", fmt.Sprintf("%q, 1, ifVersion -1 (a negative version, on an absent key)", k),
		callErr(ds.Set(ctx, k, json.RawMessage(`1`), spi.IfVersion(-1))), invalidCodes...); err != nil {
		return true, err
	}
	if _, err := ds.Get(ctx, k); !errors.Is(err, spi.ErrNotFound) {
		if perr := protocolBreach(c, "durableStateStore.get", err); perr != nil {
			return true, perr
		}
		return true, c.Failf("durableStateStore.get", fmt.Sprintf("%q after refused sets", k), err, "not found")
	}
	return true, nil
}

// refusalOrderContent: a malformed digest is an invalid argument whoever asks, never a not-found
// (I-STORE-56).
func refusalOrderContent(ctx context.Context, c *BridgeCase) (bool, error) {
	cs := c.Store.ContentStore()
	if cs == nil {
		return false, nil
	}
	bad := "sha256:" + strings.Repeat("G", 64)
	_, err := cs.Get(ctx, bad)
	if err := wantCode(c, "contentStore.get", fmt.Sprintf("%q (malformed, never stored)", bad), err, invalidCodes...); err != nil {
		return true, err
	}
	if c.Store.Handshake().Declares(manifest.SeamContentStore, spi.MethodOwner) {
		_, err := cs.GetFor(ctx, spi.ContentAccess{Owner: c.ExecID("nobody")}, bad)
		if err := wantCode(c, "contentStore.get", fmt.Sprintf("%q for an owner that stored nothing", bad), err, invalidCodes...); err != nil {
			return true, err
		}
	}
	return true, nil
}

// refusalOrderDispatcher: a malformed package pinned to an unregistered target is an invalid
// argument, not an unknown target, and a heartbeat with an invalid TTL of a lease that does not
// exist is an invalid argument, not a lost lease (I-STORE-56).
func refusalOrderDispatcher(ctx context.Context, c *BridgeCase) (bool, error) {
	d := c.Store.Dispatcher()
	if d == nil {
		return false, nil
	}
	unknown := c.ExecID("unregistered-target")
	big := json.RawMessage(`{"state":"` + strings.Repeat("x", spi.MaxHintsBytes) + `"}`)
	if err := wantCode(c, "dispatcher.dispatch", fmt.Sprintf(`a package with %d bytes of hints pinned to %q (too large, unregistered target)`, len(big), unknown),
		d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: c.ExecID("order"), FlowID: "kit-flow", Target: unknown, Hints: big}), invalidCodes...); err != nil {
		return true, err
	}
	if !c.Store.Handshake().Declares(manifest.SeamExecutionDispatcher, spi.MethodHeartbeat) {
		return true, nil
	}
	ghost := ghostLease(c)
	raw, _ := json.Marshal(map[string]any{"lease": ghost, "ttlMs": 0})
	_, err := c.Store.CallRaw(ctx, "dispatcher.heartbeat", raw)
	if err := wantCode(c, "dispatcher.heartbeat", "a lease never issued, ttlMs 0", err, invalidCodes...); err != nil {
		return true, err
	}
	_, err = d.Heartbeat(ctx, ghost, time.Second)
	return true, wantCode(c, "dispatcher.heartbeat", "a lease never issued, ttlMs 1000", err, bridge.CodeLeaseLost)
}

func callErr[T any](_ T, err error) error { return err }

// bkDeleteFences: deleteExecution makes every earlier fence token stale, the next token is one never
// issued before (higher, as I-STORE-100 recommends) and the new incarnation is written under it
// (I-STORE-51). Whether an unfenced append is accepted
// after the delete is a choice (I-STORE-67, eventstore/unfenced-append), so the new incarnation
// starts fenced here.
func bkDeleteFences(ctx context.Context, c *BridgeCase) error {
	hs, es := c.Store.Handshake(), c.Store.EventStore()
	if es == nil || !hs.Declares(manifest.SeamEventStore, spi.MethodAcquireFence) || !hs.Declares(manifest.SeamEventStore, spi.MethodDeleteExecution) {
		return c.Skip("the bridge serves no EventStore acquireFence with deleteExecution")
	}
	x := c.ExecID("delete-fence")
	f, err := es.AcquireFence(ctx, x)
	if err == nil {
		err = es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: f.Token})
	}
	if err == nil {
		err = es.DeleteExecution(ctx, x)
	}
	if err != nil {
		return c.Failf("acquireFence/append/deleteExecution", fmt.Sprintf("%q", x), err, "nil")
	}
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0], fence %d held before deleteExecution", x, f.Token),
		es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: f.Token}), bridge.CodeFenced); err != nil {
		return err
	}
	g, err := es.AcquireFence(ctx, x)
	if err != nil || g.Token == f.Token {
		return c.Failf("eventStore.acquireFence", fmt.Sprintf("%q after deleteExecution (token %d before)", x, f.Token), fmt.Sprint(g.Token, err), "a token never issued before")
	}
	if g.Token < f.Token {
		return c.Cite("I-STORE-100").Failf("eventStore.acquireFence", fmt.Sprintf("%q after deleteExecution (token %d before)", x, f.Token), g.Token, fmt.Sprintf("a token > %d", f.Token))
	}
	if err := es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: g.Token}); err != nil {
		return c.Failf("eventStore.append", fmt.Sprintf("%q, [seq 0], fence %d acquired after deleteExecution", x, g.Token), err, "nil")
	}
	return nil
}

// bkEdgeCases: a target emptied by deleteThrough is no copyPrefix target, and an out-of-range
// through is refused first (I-STORE-52); archive batches are strictly increasing (I-STORE-53); a
// branch needs a parent id but not a parent log (I-STORE-54).
func bkEdgeCases(ctx context.Context, c *BridgeCase) error {
	hs := c.Store.Handshake()
	es, as, br := c.Store.EventStore(), c.Store.ArchiveStore(), c.Store.BranchRegistry()
	copyTrimmed := es != nil && hs.Declares(manifest.SeamEventStore, spi.MethodCopyPrefix) && hs.Declares(manifest.SeamEventStore, spi.MethodDeleteThrough)
	if !copyTrimmed && as == nil && br == nil {
		return c.Skip("the bridge serves none of the edge cases' methods (EventStore copyPrefix with deleteThrough; ArchiveStore; BranchRegistry)")
	}
	if copyTrimmed {
		src, dst := c.ExecID("copy-src"), c.ExecID("copy-dst")
		err := es.Append(ctx, src, []spi.Envelope{probeEnv(src, 0), probeEnv(src, 1)}, spi.AppendOptions{})
		if err == nil {
			err = es.Append(ctx, dst, []spi.Envelope{probeEnv(dst, 0)}, spi.AppendOptions{})
		}
		if err == nil {
			err = es.DeleteThrough(ctx, dst, 0)
		}
		if err != nil {
			return c.Failf("append/deleteThrough", fmt.Sprintf("%q, %q", src, dst), err, "nil")
		}
		if err := wantCode(c, "eventStore.copyPrefix", fmt.Sprintf("%q → %q (emptied by deleteThrough), through 99 (outside the source)", src, dst),
			es.CopyPrefix(ctx, src, dst, 99), invalidCodes...); err != nil {
			return err
		}
		if err := wantCode(c, "eventStore.copyPrefix", fmt.Sprintf("%q → %q (emptied by deleteThrough), through 0", src, dst),
			es.CopyPrefix(ctx, src, dst, 0), bridge.CodeAlreadyExists); err != nil {
			return err
		}
	}
	if as != nil {
		x := c.ExecID("archive-order")
		for _, batch := range [][]int64{{1, 1}, {2, 1}} {
			evs := []spi.Envelope{probeEnv(x, batch[0]), probeEnv(x, batch[1])}
			if err := wantCode(c, "archiveStore.append", fmt.Sprintf("%q, sequences %v", x, batch), as.Append(ctx, x, evs), invalidCodes...); err != nil {
				return err
			}
		}
		if got, err := as.Read(ctx, x); err != nil || len(got) != 0 {
			return c.Failf("archiveStore.read", fmt.Sprintf("%q after refused appends", x), fmt.Sprintf("%d envelopes (%v)", len(got), err), "none")
		}
	}
	if br != nil {
		x := c.ExecID("branch-edges")
		if err := br.Register(ctx, spi.Branch{ID: x, ParentID: x + "-never-written", ForkSequence: 1000}); err != nil {
			if perr := protocolBreach(c, "branchRegistry.register", err); perr != nil {
				return perr
			}
			return c.Failf("branchRegistry.register", fmt.Sprintf("%q, parent never written, forkSequence 1000", x), err, "nil (the registry does not read logs)")
		}
		if err := wantCode(c, "branchRegistry.register", fmt.Sprintf("%q-root, parentId \"\"", x),
			br.Register(ctx, spi.Branch{ID: x + "-root", ParentID: "", ForkSequence: 0}), invalidCodes...); err != nil {
			return err
		}
	}
	return nil
}

// bkNotifications: a request without an id is never executed (I-BRIDGE-10), on every served seam
// whose writes certify can read back: each write is posted as a notification, then looked for.
func bkNotifications(ctx context.Context, c *BridgeCase) error {
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

func notificationProbes(ctx context.Context, c *BridgeCase) []notificationProbe {
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
func claimedAmong(ctx context.Context, c *BridgeCase, d *bridge.Dispatcher, ts []string, x string) (string, error) {
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

// seamBridgeMutants are bridges serving only the plugin-tier seams or only the dispatcher that
// break a bridge-level rule there (TestSeamOnlyBridges).
func seamBridgeMutants() []spec.Mutant {
	const where = "certify:TestSeamOnlyBridges"
	m := func(name, defect string, clauses []string, check string) spec.Mutant {
		return spec.Mutant{ID: "bridge/seams/" + name, Kind: "bridge", Defect: defect, Clauses: clauses, CaughtBy: []string{check}, Where: where}
	}
	return []spec.Mutant{
		m("plugin-executes-notifications", "a bridge serving only plugin-tier seams executes a request without an id", []string{"I-BRIDGE-10"}, "bridge/notifications"),
		m("dispatcher-executes-notifications", "a bridge serving only the dispatcher executes a request without an id", []string{"I-BRIDGE-10"}, "bridge/notifications"),
		m("target-before-argument", "the dispatcher refuses a malformed package pinned to an unregistered target as an unknown target", []string{"I-STORE-56"}, "bridge/refusal-order"),
		m("conflict-before-argument", "durable state checks the version condition before the key, so a set with an empty key is a conflict", []string{"I-STORE-56"}, "bridge/refusal-order"),
		m("lease-lost-as-internal", "a lost lease crosses the bridge as an internal error (-32603)", []string{"I-BRIDGE-3"}, "bridge/error-codes"),
		m("null-version-unconditional", "a set with ifVersion null is taken for an unconditional set and overwrites the key", []string{"I-BRIDGE-13"}, "bridge/malformed-requests"),
	}
}
