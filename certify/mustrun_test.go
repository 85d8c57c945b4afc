package certify_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// appendReadOnly serves only the required EventStore methods, so every optional check skips.
type appendReadOnly struct{ es spi.EventStore }

func (s appendReadOnly) Append(ctx context.Context, x string, evs []spi.Envelope, o spi.AppendOptions) error {
	return s.es.Append(ctx, x, evs, o)
}
func (s appendReadOnly) Read(ctx context.Context, x string) ([]spi.Envelope, error) {
	return s.es.Read(ctx, x)
}

func serveBridge(t *testing.T, st bridge.Stores) string {
	t.Helper()
	srv, err := bridge.NewServer(st, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL + "/"
}

// A --run subset is partial whatever it selected, on every kind: a seam none of whose selected
// checks judged anything is not a problem of the target but of the selection (issue: certify all
// --run X exited 1 where certify eventstore --run X exited 5). A full run whose served seam judged
// nothing is not certified (I-STORE-24; TestConcludeVerdicts "only the version claim ran").
func TestSeamWithoutMustCheckNotCertified(t *testing.T) {
	url := serveBridge(t, bridge.Stores{Implementation: bridge.Implementation{Name: "append-read", Version: "1"},
		EventStore: appendReadOnly{memory.NewEventStore()}})
	run := func(t *testing.T, filter string) *certify.Report {
		t.Helper()
		rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url}, certify.Config{Kinds: []string{"eventstore"}, Run: filter, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	for _, filter := range []string{
		// Optional methods this store does not declare: every eventstore check skips but the claim.
		"^(bridge/handshake|eventstore/version-claim|eventstore/fence-zombie|eventstore/read-range-bounds)$",
		// No eventstore check selected at all.
		"^bridge/handshake$",
	} {
		rep := run(t, filter)
		if f := failing(rep); len(f) != 0 {
			t.Fatalf("--run %s: checks did not pass or skip: %v", filter, f)
		}
		if rep.Verdict != certify.Partial || len(rep.Seams) != 1 || rep.Seams[0].Verdict != certify.Partial || !rep.Seams[0].Served || len(rep.Problems) != 0 {
			t.Errorf("certify/seam-needs-must [I-CERT-6]: Run(--run %s) = %s, seams %+v, problems %q; want served and partial", filter, rep.Verdict, rep.Seams, rep.Problems)
		}
	}
	rep := run(t, "^(bridge/handshake|eventstore/version-claim|eventstore/fence-zombie|eventstore/append-read-order)$")
	// One MUST check ran and passed: the seam judged something; a --run subset is still only partial.
	if rep.Verdict != certify.Partial || rep.Seams[0].Verdict != certify.Partial || len(rep.Problems) != 0 {
		t.Errorf("certify/seam-needs-must [I-STORE-24]: Run(with append-read-order) = %s (seam %s), problems %q, failing %v; want partial", rep.Verdict, rep.Seams[0].Verdict, rep.Problems, failing(rep))
	}
}

// A bridge that declares a seam and answers every store call "unsupported" is not certified: its
// declared methods fail (I-STORE-24, I-BRIDGE-2), and nothing it skips counts.
func TestAllUnsupportedBridgeNotCertified(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		id := string(req.ID)
		switch {
		case req.Method == "bridge.handshake":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocol":"1.0.0","implementation":{"name":"nothing-store","version":"0.0.1"},"seams":{"EventStore":{"spiVersion":"2.6.0","methods":["append","read"]}}}}`))
		case req.Method == "eventStore.append" || req.Method == "eventStore.read":
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32006,"message":"not today"}}`))
		default:
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"method not found"}}`))
		}
	}))
	defer hs.Close()
	rep, err := certify.Run(context.Background(), certify.URLTarget{URL: hs.URL + "/"}, certify.Config{Kinds: []string{"eventstore"}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Certified() || len(rep.Seams) != 1 || rep.Seams[0].Verdict != certify.NotCertified {
		t.Fatalf("certify/seam-needs-must [I-STORE-24]: Run(all-unsupported bridge) = certified %v, seams %+v; want not certified", rep.Certified(), rep.Seams)
	}
	if c, _ := find(rep, "eventstore/append-read-order"); c.Verdict != kits.Fail || !c.Blocking {
		t.Errorf("certify/seam-needs-must [I-STORE-24]: append-read-order = %s (blocking %v) %q, want a blocking fail (a declared method answered unsupported)", c.Verdict, c.Blocking, firstLine(c.Message))
	}
}
