package certify

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
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

// bkRefusalOrder: invalid argument, then fenced, then conflict (I-STORE-50); empty batches are
// refused the same way and otherwise write nothing; a negative sequence is invalid, not a conflict.
func bkRefusalOrder(ctx context.Context, c *BridgeCase) error {
	es := c.Store.EventStore()
	if es == nil {
		return c.Skip("the bridge serves no EventStore")
	}
	hs := c.Store.Handshake()
	x := c.ExecID("order")
	if err := es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{}); err != nil {
		return c.Failf("eventStore.append", fmt.Sprintf("%q, [seq 0]", x), err, "nil")
	}
	neg := probeEnv(x, -1)
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq -1]", x),
		es.Append(ctx, x, []spi.Envelope{neg}, spi.AppendOptions{}), invalidCodes...); err != nil {
		return err
	}
	if err := wantCode(c, "eventStore.append", `"", [] (empty batch, empty id)`,
		es.Append(ctx, "", []spi.Envelope{}, spi.AppendOptions{}), invalidCodes...); err != nil {
		return err
	}
	if err := es.Append(ctx, x, []spi.Envelope{}, spi.AppendOptions{}); err != nil {
		return c.Failf("eventStore.append", fmt.Sprintf("%q, [] (empty batch)", x), err, "nil, nothing written")
	}
	if !hs.Declares(manifest.SeamEventStore, spi.MethodAcquireFence) {
		return nil
	}
	stale, err1 := es.AcquireFence(ctx, x)
	cur, err2 := es.AcquireFence(ctx, x)
	if err1 != nil || err2 != nil {
		return c.Failf("eventStore.acquireFence", fmt.Sprintf("%q twice", x), fmt.Sprint(err1, err2), "two tokens")
	}
	// Wrong in three ways: negative sequence, stale fence, taken sequence: invalid wins.
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq -1], stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{neg}, spi.AppendOptions{Fence: stale.Token}), invalidCodes...); err != nil {
		return err
	}
	// Stale fence and a taken sequence: fenced wins over the conflict.
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0] (taken), stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: stale.Token}), bridge.CodeFenced); err != nil {
		return err
	}
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [] (empty batch), stale fence %d", x, stale.Token),
		es.Append(ctx, x, []spi.Envelope{}, spi.AppendOptions{Fence: stale.Token}), bridge.CodeFenced); err != nil {
		return err
	}
	if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0] (taken), current fence %d", x, cur.Token),
		es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{Fence: cur.Token}), bridge.CodeConflict); err != nil {
		return err
	}
	got, err := es.Read(ctx, x)
	if err != nil || len(got) != 1 {
		return c.Failf("eventStore.read", fmt.Sprintf("%q after the refused appends", x), fmt.Sprintf("%d envelopes (%v)", len(got), err), "the one envelope appended first")
	}
	return nil
}

// bkEdgeCases: deleteExecution fences every earlier token (I-STORE-51); a target emptied by
// deleteThrough is no copyPrefix target, and an out-of-range through is refused first (I-STORE-52);
// archive batches are strictly increasing (I-STORE-53); a branch needs a parent id but not a
// parent log (I-STORE-54).
func bkEdgeCases(ctx context.Context, c *BridgeCase) error {
	hs := c.Store.Handshake()
	decl := func(seam, m string) bool { return hs.Declares(seam, m) }
	if es := c.Store.EventStore(); es != nil {
		if decl(manifest.SeamEventStore, spi.MethodAcquireFence) && decl(manifest.SeamEventStore, spi.MethodDeleteExecution) {
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
			if err := es.Append(ctx, x, []spi.Envelope{probeEnv(x, 0)}, spi.AppendOptions{}); err != nil {
				return c.Failf("eventStore.append", fmt.Sprintf("%q, [seq 0], unfenced, after deleteExecution", x), err, "nil")
			}
			g, err := es.AcquireFence(ctx, x)
			if err != nil || g.Token <= f.Token {
				return c.Failf("eventStore.acquireFence", fmt.Sprintf("%q after deleteExecution (token %d before)", x, f.Token), fmt.Sprint(g.Token, err), fmt.Sprintf("a token > %d", f.Token))
			}
		}
		if decl(manifest.SeamEventStore, spi.MethodCopyPrefix) && decl(manifest.SeamEventStore, spi.MethodDeleteThrough) {
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
			cp := es
			if err := wantCode(c, "eventStore.copyPrefix", fmt.Sprintf("%q → %q (emptied by deleteThrough), through 99 (outside the source)", src, dst),
				cp.CopyPrefix(ctx, src, dst, 99), invalidCodes...); err != nil {
				return err
			}
			if err := wantCode(c, "eventStore.copyPrefix", fmt.Sprintf("%q → %q (emptied by deleteThrough), through 0", src, dst),
				cp.CopyPrefix(ctx, src, dst, 0), bridge.CodeAlreadyExists); err != nil {
				return err
			}
		}
	}
	if as := c.Store.ArchiveStore(); as != nil {
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
	if br := c.Store.BranchRegistry(); br != nil {
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

// bkNotifications: a request without an id is never executed (I-BRIDGE-10).
func bkNotifications(ctx context.Context, c *BridgeCase) error {
	es := c.Store.EventStore()
	if es == nil {
		return c.Skip("the bridge serves no EventStore")
	}
	x := c.ExecID("notification")
	params, _ := json.Marshal(map[string]any{"executionId": x, "events": []spi.Envelope{probeEnv(x, 0)}})
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"eventStore.append","params":%s}`, params)
	if _, _, err := c.Store.PostRaw(ctx, []byte(body)); err != nil {
		return err
	}
	got, err := es.Read(ctx, x)
	if err != nil {
		return c.Failf("eventStore.read", fmt.Sprintf("%q after a notification", x), err, "[]")
	}
	if len(got) != 0 {
		return c.Failf("POST", body, fmt.Sprintf("the append was executed (%d envelopes stored)", len(got)), "no effect: a notification is never executed")
	}
	return nil
}
