package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// executesNotifications runs a request without an id as if it had one and answers nothing
// (violates I-BRIDGE-10).
func executesNotifications(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]json.RawMessage
		if json.Unmarshal(body, &req) == nil && req["method"] != nil && req["id"] == nil {
			req["id"] = json.RawMessage(`"notification"`)
			body, _ = json.Marshal(req)
			rec := httptest.NewRecorder()
			r2 := r.Clone(r.Context())
			r2.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(rec, r2)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// serve serves st over the bridge protocol, its handler wrapped by wrap when set, for the test.
func serve(t *testing.T, st bridge.Stores, wrap func(http.Handler) http.Handler) string {
	srv, err := bridge.NewServer(st, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL + "/"
}

// The notification check passes on the reference store and rejects the bridge registered for it
// (certify.Mutants, kind bridge). The store rules at the edges (refusal order, the fence after
// deleteExecution, copyPrefix onto a trimmed target, archive batches, parentless branches) are the
// store kits' and their broken stores kits/broken's.
func TestBridgeEdgeCases(t *testing.T) {
	const where = "certify:TestBridgeEdgeCases"
	stores := func(es spi.EventStore) bridge.Stores {
		return bridge.Stores{Implementation: bridge.Implementation{Name: "edges", Version: "1"}, EventStore: es,
			ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry()}
	}
	run := func(t *testing.T, url string) *certify.Report {
		rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url},
			certify.Config{Kinds: []string{"eventstore"}, Run: "^bridge/notifications$", Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run(t, serve(t, stores(memory.NewEventStore()), nil))
	for _, id := range []string{"bridge/notifications"} {
		if c, ok := find(rep, id); !ok || c.Verdict != kits.Pass {
			t.Errorf("%s on the reference memory store = %s %q, want pass", id, c.Verdict, firstLine(c.Message))
		}
	}
	urls := map[string]func(t *testing.T) string{
		"bridge/edges/executes-notifications": func(t *testing.T) string {
			return serve(t, stores(memory.NewEventStore()), executesNotifications)
		},
	}
	built := []string{"bridge/edges/executes-notifications"}
	rejectsEach(t, where, built, urls, run)
}

// rejectsEach serves each registered bridge mutant of where (urls builds its bridge), runs the
// checks on it and wants every check the mutant is registered to be caught by to fail, recording
// the kill.
func rejectsEach(t *testing.T, where string, built []string, urls map[string]func(*testing.T) string, run func(*testing.T, string) *certify.Report) {
	t.Helper()
	for _, m := range proof.Registered(t, certify.Mutants(), where, built) {
		t.Run(m.ID, func(t *testing.T) {
			rep := run(t, urls[m.ID](t))
			for _, id := range m.CaughtBy {
				c, ok := find(rep, id)
				if !ok || c.Verdict != kits.Fail {
					t.Errorf("%s: %s = %s %q, want fail", m.ID, id, c.Verdict, firstLine(c.Message))
					continue
				}
				proof.Rejected(t, m.ID, id, c.Message)
			}
		})
	}
}
