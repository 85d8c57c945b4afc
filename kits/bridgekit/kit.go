package bridgekit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Case is what a bridge protocol check runs against.
type Case = kits.Case[*bridge.Client]

// Kit is the store bridge protocol kit: checks of the bridge itself (handshake, declared methods,
// error codes, malformed requests, wire forms, notifications) that run before the store kits
// (docs/bridge.md). Every check of what a store keeps is a store kit's, so the Go route runs it too.
func Kit() kits.Kit[*bridge.Client] {
	type C = kits.Check[*bridge.Client]
	return kits.Kit[*bridge.Client]{Name: "bridge", Checks: []C{
		{ID: "bridge/handshake", Clauses: []string{"I-BRIDGE-1", "S7.spi.semver", "I-STORE-21"}, Level: spec.Must,
			Doc: "the handshake names the implementation, a semver SPI claim per seam this harness can hold it to, and only known methods, the required ones included", Run: bkHandshake},
		{ID: "bridge/declared-methods-answer", Clauses: []string{"I-BRIDGE-2", "I-BRIDGE-4", "I-BRIDGE-12", "I-STORE-24"}, Level: spec.Must,
			Doc: "every method the handshake declares answers a harmless call with a well-formed result or error, never method-not-found", Run: bkDeclared},
		{ID: "bridge/error-codes", Clauses: []string{"I-BRIDGE-3"}, Level: spec.Must,
			Doc: "conflict, invalid argument, fenced, not found, already exists, unknown target and lease lost arrive as their documented codes, on every served seam", Run: bkErrorCodes},
		{ID: "bridge/unknown-method", Clauses: []string{"I-BRIDGE-2", "I-BRIDGE-9"}, Level: spec.Should,
			Doc: "a method the bridge does not serve answers -32601", Run: bkUnknownMethod},
		{ID: "bridge/malformed-requests", Clauses: []string{"I-BRIDGE-9", "I-BRIDGE-13"}, Level: spec.Should,
			Doc: "a body that is not JSON, a batch and ill-typed params of every served seam (a null ifVersion, cursor or hints included) get -32700, -32600 and -32602/-32005, change nothing, and the bridge keeps serving", Run: bkMalformed},
		{ID: "bridge/plugin-wire-forms", Clauses: []string{"I-PLUGIN-11", "I-PLUGIN-2", "I-PLUGIN-8"}, Level: spec.Must,
			Doc: "a chunked stream is invisible until its commit and refuses a wrong offset or size; an aborted stream takes no chunk and no commit and never becomes visible; a non-integer or string query limit is refused (skipped when neither putStream nor query is served)", Run: bkPluginWire},
		{ID: "bridge/lone-surrogate-ids", Clauses: []string{"I-STORE-81"}, Level: spec.Must,
			Doc: "a write whose id, key or model holds a lone surrogate (\\ud800) is refused with -32602 or -32005 and stores nothing, also not under the id with U+FFFD in its place", Run: bkLoneSurrogateIDs},
		{ID: "bridge/notifications", Clauses: []string{"I-BRIDGE-10"}, Level: spec.Must,
			Doc: "a request without an id (a JSON-RPC notification) is never executed, on every served seam whose writes can be read back", Run: bkNotifications},
	}}
}

func bkHandshake(ctx context.Context, c *Case) error {
	hs := c.Store.Handshake()
	if !strings.HasPrefix(hs.Protocol, "1.") {
		return c.Failf("bridge.handshake", "", "protocol "+hs.Protocol, "1.x.y")
	}
	seams := make([]string, 0, len(hs.Seams))
	for s := range hs.Seams {
		seams = append(seams, s)
	}
	sort.Strings(seams)
	for _, seam := range seams {
		sup := hs.Seams[seam]
		def, ok := manifest.LookupSpi(seam)
		if !ok {
			return c.Failf("bridge.handshake", "", "seam "+seam, "one of "+strings.Join(bridge.Seams(), ", "))
		}
		claim, err := manifest.ParseVersion(sup.SpiVersion)
		cur, _ := manifest.ParseVersion(def.Version) // the manifest's own versions parse
		if err != nil || claim.Major != cur.Major || cur.Less(claim) {
			return c.Failf("bridge.handshake", "seams."+seam+".spiVersion", sup.SpiVersion, fmt.Sprintf("%d.x.y, at most %s", cur.Major, cur))
		}
		known := map[string]manifest.SpiMethod{}
		for _, m := range def.Methods {
			known[m.Name] = m
		}
		declared := map[string]bool{}
		for _, m := range sup.Methods {
			if _, ok := known[m]; !ok {
				return c.Failf("bridge.handshake", "seams."+seam+".methods", fmt.Sprintf("unknown method %q", m), "methods of "+seam+" (manifest)")
			}
			declared[m] = true
		}
		for _, m := range def.Methods {
			if !m.Optional && !declared[m.Name] {
				return c.Failf("bridge.handshake", "seams."+seam+".methods", fmt.Sprintf("%v (required %q missing)", sup.Methods, m.Name), "every required method listed")
			}
		}
	}
	return nil
}

// protocolBreach reports err when it says the bridge broke the protocol (or the handshake lied).
func protocolBreach(c *Case, op string, err error) error {
	var pe *bridge.ProtocolError
	var te *bridge.TransportError
	switch {
	case errors.As(err, &pe):
		return c.Failf(op, "a harmless call", err, "a well-formed result or error")
	case errors.As(err, &te):
		return err // the link failed: no verdict (unknown)
	}
	return nil
}

func bkDeclared(ctx context.Context, c *Case) error {
	x := c.ExecID("declared")
	env := spi.Envelope{ID: x + "#0", WorkflowID: "wf-bridge", ExecutionID: x, EventType: "BRIDGE_PROBE", Sequence: 0,
		Timestamp: 1_700_000_000_000, Payload: json.RawMessage(`{"probe":true}`)}
	type call struct {
		name string
		do   func() error
	}
	var calls []call
	if es := c.Store.EventStore(); es != nil {
		calls = append(calls,
			call{"eventStore.append", func() error { return es.Append(ctx, x, nil, spi.AppendOptions{}) }},
			call{"eventStore.read", func() error { _, err := es.Read(ctx, x); return err }},
			call{"eventStore.readRange", func() error { _, err := es.ReadRange(ctx, x, 0, -1); return err }},
			call{"eventStore.acquireFence", func() error { _, err := es.AcquireFence(ctx, x+"-f"); return err }},
			call{"eventStore.acquireFenceIf", func() error { _, err := es.AcquireFenceIf(ctx, x+"-g", 0); return err }},
			call{"eventStore.appendIfUnchanged", func() error {
				a, err := es.Observe(ctx, x)
				if err != nil {
					return err
				}
				return es.AppendIfUnchanged(ctx, x, a, nil, spi.AppendOptions{})
			}},
			call{"eventStore.storeNow", func() error { _, err := es.StoreNow(ctx); return err }},
			call{"eventStore.deleteThrough", func() error { return es.DeleteThrough(ctx, x, 0) }},
			call{"eventStore.sealingCapability", func() error { _, err := es.SealingCapability(ctx); return err }},
			call{"eventStore.copyPrefix", func() error { return es.CopyPrefix(ctx, x, x+"-copy", 0) }},
			call{"eventStore.deleteExecution", func() error { return es.DeleteExecution(ctx, x) }},
			call{"eventStore.listExecutionsPage", func() error { _, err := es.ListExecutionsPage(ctx, "", 1); return err }},
		)
	}
	if ss := c.Store.SnapshotStore(); ss != nil {
		snap := spi.Snapshot{ExecutionID: x, Sequence: 0, State: json.RawMessage(`{"status":"pending"}`)}
		calls = append(calls,
			call{"snapshotStore.save", func() error { return ss.Save(ctx, snap) }},
			call{"snapshotStore.loadLatest", func() error { _, err := ss.LoadLatest(ctx, x); return err }},
			call{"snapshotStore.loadLatestSealed", func() error { _, err := ss.LoadLatestSealed(ctx, x); return err }},
			call{"snapshotStore.listSequences", func() error { _, err := ss.ListSequences(ctx, x); return err }},
			call{"snapshotStore.pruneSnapshots", func() error { _, err := ss.PruneSnapshots(ctx, x, spi.SeqRange{From: 0, Through: 0}); return err }},
			call{"snapshotStore.deleteExecution", func() error { return ss.DeleteExecution(ctx, x) }},
		)
	}
	if as := c.Store.ArchiveStore(); as != nil {
		calls = append(calls,
			call{"archiveStore.append", func() error { return as.Append(ctx, x, []spi.Envelope{env}) }},
			call{"archiveStore.read", func() error { _, err := as.Read(ctx, x); return err }},
			call{"archiveStore.replaceSegments", func() error {
				return as.ReplaceSegments(ctx, x, spi.SeqRange{From: 0, Through: 0}, []spi.Envelope{env})
			}},
			call{"archiveStore.deleteExecution", func() error { return as.DeleteExecution(ctx, x) }},
		)
	}
	if br := c.Store.BranchRegistry(); br != nil {
		calls = append(calls,
			call{"branchRegistry.register", func() error {
				return br.Register(ctx, spi.Branch{ID: x + "-branch", ParentID: x, ForkSequence: 0})
			}},
			call{"branchRegistry.get", func() error { _, err := br.Get(ctx, x+"-branch"); return err }},
			call{"branchRegistry.listChildren", func() error { _, err := br.ListChildren(ctx, x); return err }},
		)
	}
	for _, pc := range append(pluginCalls(ctx, c, x), dispatcherCalls(ctx, c, x)...) {
		calls = append(calls, call{pc.name, pc.do})
	}
	hs := c.Store.Handshake()
	for _, cl := range calls {
		m, _ := bridge.LookupMethod(cl.name)
		if !hs.Declares(m.Seam, m.SpiMethod) {
			continue
		}
		if err := protocolBreach(c, cl.name, cl.do()); err != nil {
			return err
		}
	}
	return nil
}

// wantCode checks that err is a bridge error with one of codes.
func wantCode(c *Case, op, args string, err error, codes ...int) error {
	var re *bridge.RemoteError
	if errors.As(err, &re) {
		for _, code := range codes {
			if re.RPC.Code == code {
				return nil
			}
		}
	}
	if perr := protocolBreach(c, op, err); perr != nil {
		return perr
	}
	want := make([]string, len(codes))
	for i, code := range codes {
		want[i] = fmt.Sprint(code)
	}
	return c.Failf(op, args, err, "bridge error "+strings.Join(want, " or "))
}

func bkErrorCodes(ctx context.Context, c *Case) error {
	if len(c.Store.Handshake().Seams) == 0 {
		return c.Skip("the handshake names no seam")
	}
	for _, part := range []func(context.Context, *Case) error{storeErrorCodes, archiveErrorCodes, pluginErrorCodes, dispatcherErrorCodes} {
		if err := part(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// storeErrorCodes: conflict, invalid argument, fenced, not found and already exists of the event
// log, the snapshots and the branches arrive as their codes (I-BRIDGE-3).
func storeErrorCodes(ctx context.Context, c *Case) error {
	hs := c.Store.Handshake()
	es, ss, br := c.Store.EventStore(), c.Store.SnapshotStore(), c.Store.BranchRegistry()
	if es != nil {
		x := c.ExecID("codes")
		e0 := spi.Envelope{ID: x + "#0", WorkflowID: "wf-bridge", ExecutionID: x, EventType: "BRIDGE_PROBE", Timestamp: 1, Payload: json.RawMessage(`0`)}
		if err := es.Append(ctx, x, []spi.Envelope{e0}, spi.AppendOptions{}); err != nil {
			if perr := protocolBreach(c, "eventStore.append", err); perr != nil {
				return perr
			}
			return c.Failf("eventStore.append", fmt.Sprintf("%q, [seq 0]", x), err, "nil")
		}
		if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 0] again", x),
			es.Append(ctx, x, []spi.Envelope{e0}, spi.AppendOptions{}), bridge.CodeConflict); err != nil {
			return err
		}
		bad := e0
		bad.ExecutionID = ""
		if err := wantCode(c, "eventStore.append", `"", [seq 0]`,
			es.Append(ctx, "", []spi.Envelope{bad}, spi.AppendOptions{}), bridge.CodeInvalidArgument, bridge.CodeInvalidParams); err != nil {
			return err
		}
		if hs.Declares(manifest.SeamEventStore, spi.MethodAcquireFence) {
			f1, err1 := es.AcquireFence(ctx, x)
			_, err2 := es.AcquireFence(ctx, x)
			if err := errors.Join(err1, err2); err != nil {
				if perr := protocolBreach(c, "eventStore.acquireFence", err); perr != nil {
					return perr
				}
				return c.Failf("eventStore.acquireFence", fmt.Sprintf("%q twice", x), err, "two tokens")
			}
			e1 := e0
			e1.Sequence, e1.ID = 1, x+"#1"
			if err := wantCode(c, "eventStore.append", fmt.Sprintf("%q, [seq 1], stale fence %d", x, f1.Token),
				es.Append(ctx, x, []spi.Envelope{e1}, spi.AppendOptions{Fence: f1.Token}), bridge.CodeFenced); err != nil {
				return err
			}
		}
	}
	if ss != nil {
		x := c.ExecID("codes-snap")
		_, err := ss.LoadLatest(ctx, x)
		if err := wantCode(c, "snapshotStore.loadLatest", fmt.Sprintf("%q (never saved)", x), err, bridge.CodeNotFound); err != nil {
			return err
		}
	}
	if br != nil {
		x := c.ExecID("codes-branch")
		_, err := br.Get(ctx, x)
		if err := wantCode(c, "branchRegistry.get", fmt.Sprintf("%q (never registered)", x), err, bridge.CodeNotFound); err != nil {
			return err
		}
		b := spi.Branch{ID: x, ParentID: x + "-parent-a", ForkSequence: 1}
		if err := br.Register(ctx, b); err != nil {
			if perr := protocolBreach(c, "branchRegistry.register", err); perr != nil {
				return perr
			}
			return c.Failf("branchRegistry.register", fmt.Sprintf("%q", x), err, "nil")
		}
		b.ParentID = x + "-parent-b"
		if err := wantCode(c, "branchRegistry.register", fmt.Sprintf("%q again with another parent", x),
			br.Register(ctx, b), bridge.CodeAlreadyExists); err != nil {
			return err
		}
	}
	return nil
}

// archiveErrorCodes: a different envelope at an archived sequence is a conflict, -32001.
func archiveErrorCodes(ctx context.Context, c *Case) error {
	as := c.Store.ArchiveStore()
	if as == nil {
		return nil
	}
	x := c.ExecID("codes-archive")
	e := probeEnv(x, 0)
	if err := as.Append(ctx, x, []spi.Envelope{e}); err != nil {
		if perr := protocolBreach(c, "archiveStore.append", err); perr != nil {
			return perr
		}
		return c.Failf("archiveStore.append", fmt.Sprintf("%q, [seq 0]", x), err, "nil")
	}
	e.Payload = json.RawMessage(`1`)
	return wantCode(c, "archiveStore.append", fmt.Sprintf("%q, [seq 0] again with another payload", x), as.Append(ctx, x, []spi.Envelope{e}), bridge.CodeConflict)
}

func bkUnknownMethod(ctx context.Context, c *Case) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"eventStore.noSuchMethod","params":{}}`
	_, resp, err := c.Store.PostRaw(ctx, []byte(body))
	if err != nil {
		return err
	}
	if code := bridge.ErrorCode(resp); code != bridge.CodeMethodNotFound {
		return c.Failf("POST", body, fmt.Sprintf("code %d (body %s)", code, clip(resp)), "error -32601")
	}
	return nil
}

func bkMalformed(ctx context.Context, c *Case) error {
	type malformed struct {
		body  string
		codes []int
	}
	cases := []malformed{
		{`{"jsonrpc":"2.0","id":1,"method":`, []int{bridge.CodeParseError}},
		{`[{"jsonrpc":"2.0","id":1,"method":"bridge.handshake","params":{}}]`, []int{bridge.CodeInvalidRequest}},
	}
	illTyped := []int{bridge.CodeInvalidParams, bridge.CodeInvalidArgument}
	if c.Store.EventStore() != nil {
		cases = append(cases, malformed{`{"jsonrpc":"2.0","id":1,"method":"eventStore.read","params":{"executionId":42}}`, illTyped})
	}
	// null is not absence (I-BRIDGE-13): each of these is refused and changes nothing.
	var after []func() error
	if ds := c.Store.DurableStateStore(); ds != nil {
		k := c.ExecID("null-version")
		if _, err := ds.Set(ctx, k, json.RawMessage(`"first"`), spi.IfVersion(0)); err != nil {
			if perr := protocolBreach(c, "durableStateStore.set", err); perr != nil {
				return perr
			}
			return c.Failf("durableStateStore.set", fmt.Sprintf("%q, ifVersion 0", k), err, "nil")
		}
		cases = append(cases, malformed{fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"durableStateStore.set","params":{"key":%s,"value":"second","ifVersion":null}}`, quote(k)), illTyped})
		after = append(after, func() error {
			got, err := ds.Get(ctx, k)
			if err != nil || string(got.Value) != `"first"` {
				return c.Failf("durableStateStore.get", fmt.Sprintf("%q) after a set with ifVersion null (", k), entryOrErr(got, err), `"first" (the refused set changed nothing)`)
			}
			return nil
		})
	}
	if c.Store.ReadModelStore() != nil {
		cases = append(cases, malformed{fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"readModelStore.query","params":{"model":%s,"limit":1,"cursor":null}}`, quote(c.ExecID("null-cursor"))), illTyped})
	}
	if c.Store.Dispatcher() != nil {
		cases = append(cases, malformed{fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"dispatcher.dispatch","params":{"package":{"executionId":%s,"flowId":"kit-flow","hints":null}}}`, quote(c.ExecID("null-hints"))), illTyped})
	}
	for _, tc := range cases {
		_, resp, err := c.Store.PostRaw(ctx, []byte(tc.body))
		if err != nil {
			return err
		}
		code := bridge.ErrorCode(resp)
		ok := false
		for _, w := range tc.codes {
			ok = ok || code == w
		}
		if !ok {
			return c.Failf("POST", tc.body, fmt.Sprintf("code %d (body %s)", code, clip(resp)), fmt.Sprintf("error %v", tc.codes))
		}
	}
	for _, f := range after {
		if err := f(); err != nil {
			return err
		}
	}
	if _, err := c.Store.FetchHandshake(ctx); err != nil {
		return c.Failf("bridge.handshake", "after malformed requests", err, "the bridge still answering")
	}
	return nil
}

func entryOrErr(e spi.StateEntry, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("version %d, value %s", e.Version, clip(e.Value))
}

func clip(b []byte) string {
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}
