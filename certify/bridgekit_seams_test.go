package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	dispatchmem "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

func pluginOnly() bridge.Stores {
	return bridge.Stores{Implementation: bridge.Implementation{Name: "plugin-only", Version: "1"},
		ContentStore: memory.NewContentStore(), DurableStateStore: memory.NewDurableStateStore(), ReadModelStore: memory.NewReadModelStore()}
}

func dispatcherOnly() bridge.Stores {
	return bridge.Stores{Implementation: bridge.Implementation{Name: "dispatcher-only", Version: "1"},
		Dispatcher: dispatchmem.New(dispatchmem.Config{Targets: []string{"cpu"}})}
}

// answerRewritten edits every response body before it leaves the bridge.
func answerRewritten(edit func([]byte) []byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			body := edit(rec.Body.Bytes())
			w.Header().Set("Content-Length", "")
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

// surrogatesReplaced reads every lone surrogate escape as U+FFFD before the bridge sees the
// request, as a lenient JSON decoder does (violates I-STORE-81).
func surrogatesReplaced(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		body = bytes.ReplaceAll(body, []byte(`\ud800`), []byte(`\ufffd`))
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// nullDropped removes members whose value is null from the params before the bridge reads them, so
// a null ifVersion reaches the store as no condition at all (violates I-BRIDGE-13).
func nullDropped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if d.Decode(&req) == nil {
			if p, ok := req["params"].(map[string]any); ok {
				for k, v := range p {
					if v == nil {
						delete(p, k)
					}
				}
				body, _ = json.Marshal(req)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// A bridge that serves only the event log, only the plugin-tier seams, or only the dispatcher, is
// held to every bridge-level check that applies to what it serves (notifications included), skips
// the others naming what is missing, and is rejected when it breaks one of them.
func TestSeamOnlyBridges(t *testing.T) {
	const where = "certify:TestSeamOnlyBridges"
	run := func(t *testing.T, url string) *certify.Report {
		rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url}, certify.Config{Kinds: []string{"all"}, Run: "^bridge/", Seed: 13})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	skips := map[string]map[string]bool{
		"eventstore-only": {"bridge/plugin-wire-forms": true},
		"dispatcher-only": {"bridge/plugin-wire-forms": true, "bridge/lone-surrogate-ids": true},
	}
	eventsOnly := bridge.Stores{Implementation: bridge.Implementation{Name: "eventstore-only", Version: "1"}, EventStore: memory.NewEventStore()}
	for name, st := range map[string]bridge.Stores{"eventstore-only": eventsOnly, "plugin-only": pluginOnly(), "dispatcher-only": dispatcherOnly()} {
		t.Run(name, func(t *testing.T) {
			rep := run(t, serve(t, st, nil))
			if want := len(bridgekit.Kit().Checks); len(rep.Checks) < want {
				t.Fatalf("%d bridge checks ran, want %d", len(rep.Checks), want)
			}
			for _, c := range rep.Checks {
				switch {
				case skips[name][c.ID]:
					if c.Verdict != kits.Skip || !strings.Contains(c.Message, "the bridge serves") {
						t.Errorf("%s = %s %q, want a skip naming what is not served", c.ID, c.Verdict, firstLine(c.Message))
					}
				case c.Verdict != kits.Pass:
					t.Errorf("%s = %s %q, want pass", c.ID, c.Verdict, firstLine(c.Message))
				}
			}
		})
	}
	lostAsInternal := answerRewritten(func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(`"code":-32010`), []byte(`"code":-32603`)) })
	urls := map[string]func(t *testing.T) string{
		"bridge/seams/plugin-executes-notifications":     func(t *testing.T) string { return serve(t, pluginOnly(), executesNotifications) },
		"bridge/seams/dispatcher-executes-notifications": func(t *testing.T) string { return serve(t, dispatcherOnly(), executesNotifications) },
		"bridge/seams/lease-lost-as-internal":            func(t *testing.T) string { return serve(t, dispatcherOnly(), lostAsInternal) },
		"bridge/seams/null-version-unconditional":        func(t *testing.T) string { return serve(t, pluginOnly(), nullDropped) },
		"bridge/seams/lone-surrogates-replaced":          func(t *testing.T) string { return serve(t, pluginOnly(), surrogatesReplaced) },
	}
	var built []string
	for id := range urls {
		built = append(built, id)
	}
	rejectsEach(t, where, built, urls, run)
}
