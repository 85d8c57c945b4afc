package certify_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// rewrite is an http middleware that edits the params of one method before the bridge sees them.
func rewrite(h http.Handler, method string, edit func(params map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if d.Decode(&req) == nil && req["method"] == method {
			if p, ok := req["params"].(map[string]any); ok {
				edit(p)
				body, _ = json.Marshal(req)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

// pluginBrokenBridges are bridges that break the plugin-tier wire forms.
func pluginBrokenBridges() map[string]func(h http.Handler) http.Handler {
	return map[string]func(h http.Handler) http.Handler{
		// a non-integer or string limit is coerced to an integer instead of refused
		"lenient-limit": func(h http.Handler) http.Handler {
			return rewrite(h, "readModelStore.query", func(p map[string]any) { p["limit"] = 2 })
		},
		// streamAbort of a stream it does not hold open (finished or never opened) is refused
		"abort-unknown-refused": func(h http.Handler) http.Handler {
			var mu sync.Mutex
			open := map[string]bool{}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req struct {
					ID     any            `json:"id"`
					Method string         `json:"method"`
					Params map[string]any `json:"params"`
				}
				_ = json.Unmarshal(body, &req)
				id, _ := req.Params["streamId"].(string)
				mu.Lock()
				known := open[id]
				if req.Method == "contentStore.streamCommit" {
					delete(open, id)
				}
				mu.Unlock()
				if req.Method == "contentStore.streamAbort" && !known {
					resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32005, "message": "no such stream"}})
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(resp)
					return
				}
				rec := httptest.NewRecorder()
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(rec, r)
				if req.Method == "contentStore.streamOpen" {
					var res struct {
						Result struct {
							StreamID string `json:"streamId"`
						} `json:"result"`
					}
					if json.Unmarshal(rec.Body.Bytes(), &res) == nil && res.Result.StreamID != "" {
						mu.Lock()
						open[res.Result.StreamID] = true
						mu.Unlock()
					}
				}
				for k, v := range rec.Header() {
					w.Header()[k] = v
				}
				w.WriteHeader(rec.Code)
				_, _ = w.Write(rec.Body.Bytes())
			})
		},
		// streamAbort answers null but leaves the stream open, so it can still be committed
		"abort-keeps-stream": func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req struct {
					ID     any    `json:"id"`
					Method string `json:"method"`
				}
				if json.Unmarshal(body, &req) == nil && req.Method == "contentStore.streamAbort" {
					resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": nil})
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(resp)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				h.ServeHTTP(w, r)
			})
		},
		// a chunk is appended wherever it is sent: the offset is not checked
		"unchecked-offset": func(h http.Handler) http.Handler {
			var mu sync.Mutex
			written := map[string]int{}
			return rewrite(h, "contentStore.streamWrite", func(p map[string]any) {
				mu.Lock()
				defer mu.Unlock()
				id, _ := p["streamId"].(string)
				data, _ := p["data"].(string)
				p["offset"] = written[id]
				raw, _ := base64.StdEncoding.DecodeString(data)
				written[id] += len(raw)
			})
		},
	}
}

// The plugin wire forms catch bridges that coerce limits or do not check stream offsets.
func TestPluginWireFormsRejectBrokenBridges(t *testing.T) {
	const where = "certify:TestPluginWireFormsRejectBrokenBridges"
	builders := pluginBrokenBridges()
	var built []string
	for name := range builders {
		built = append(built, "bridge/plugin/"+name)
	}
	for _, m := range proof.Registered(t, certify.Mutants(), where, built) {
		name := strings.TrimPrefix(m.ID, "bridge/plugin/")
		t.Run(name, func(t *testing.T) {
			srv, err := bridge.NewServer(bridge.Stores{ContentStore: memory.NewContentStore(), ReadModelStore: memory.NewReadModelStore()}, bridge.ServerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			url, stop, err := bridge.Start("127.0.0.1:0", builders[name](srv))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			check := m.CaughtBy[0]
			res, err := kits.Run(context.Background(), bridgekit.Kit(), func(context.Context) (*bridge.Client, func(), error) { return c, nil, nil },
				kits.Options{Run: "^" + regexp.QuoteMeta(check) + "$", Timeout: 10 * time.Second, Seed: 7, SpiVersion: "1.0.0"})
			if err != nil || len(res) != 1 || res[0].Verdict != kits.Fail {
				t.Fatalf("%s: %s = %v, %v, want one fail", m.ID, check, res, err)
			}
			proof.Rejected(t, m.ID, check, res[0].Message)
		})
	}
}

// The reference bridge passes the same check.
func TestPluginWireFormsPassReference(t *testing.T) {
	srv, err := bridge.NewServer(bridge.Stores{ContentStore: memory.NewContentStore(), ReadModelStore: memory.NewReadModelStore()}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := kits.Run(context.Background(), bridgekit.Kit(), func(context.Context) (*bridge.Client, func(), error) { return c, nil, nil },
		kits.Options{Run: "^bridge/", Timeout: 10 * time.Second, Seed: 7, SpiVersion: "1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	// A bridge serving only plugin seams passes every bridge check (notifications included).
	for _, r := range res {
		if r.Verdict != kits.Pass {
			t.Errorf("%s = %s (%s), want pass", r.CheckID, r.Verdict, r.Message)
		}
	}
}
