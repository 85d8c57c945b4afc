package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	dispmem "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// hostile wraps a correct bridge and, seeded, answers some calls wrongly in every way a bridge in
// another language can: results of the wrong shape, type or length, strings re-encoded, arrays cut
// or doubled, members dropped or added, huge and non-finite-looking numbers, random error codes
// with hostile data, bodies that are not JSON, HTTP errors, delays. The handshake is left intact,
// so every check runs against the lies.
type hostile struct {
	inner http.Handler
	mu    sync.Mutex
	rng   *rand.Rand
	rate  float64 // share of calls answered wrongly
	// handshake is the method answered truthfully, so the checks run against the lies.
	handshake string
}

func (h *hostile) roll() (float64, int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rng.Float64(), h.rng.Int63()
}

func (h *hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &req)
	r.Body = io.NopCloser(bytes.NewReader(body))
	p, seed := h.roll()
	if req.Method == h.handshake || p >= h.rate {
		h.inner.ServeHTTP(w, r)
		return
	}
	rng := rand.New(rand.NewSource(seed))
	rec := httptest.NewRecorder()
	h.inner.ServeHTTP(rec, r)
	w.Header().Set("Content-Type", "application/json")
	id := string(req.ID)
	if id == "" {
		id = "null"
	}
	switch rng.Intn(10) {
	case 0: // not JSON at all, or cut short
		_, _ = w.Write(rec.Body.Bytes()[:rng.Intn(rec.Body.Len()+1)])
	case 1:
		http.Error(w, "<html>502 Bad Gateway</html>", []int{500, 502, 404, 200}[rng.Intn(4)])
	case 2: // an error with a random code and hostile data
		code := []int{-32000, -32001, -32002, -32003, -32004, -32005, -32006, -32099, -32600, -32601, -32602, -32603, -32700, 0, 1, 99999, -1}[rng.Intn(17)]
		data := []string{`null`, `"x"`, `{"current":"nope"}`, `{"current":-5}`, `[1,2]`, `{"current":1e308}`, `{"sequence":"7"}`, `true`}[rng.Intn(8)]
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, id, code, strings.Repeat("\x1b[2J", rng.Intn(2))+"lie", data)
	case 3:
		time.Sleep(time.Duration(rng.Intn(30)) * time.Millisecond)
		_, _ = w.Write(rec.Body.Bytes())
	default: // a result of the right frame and the wrong value
		var resp map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &resp) != nil {
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		if res, ok := resp["result"]; ok {
			resp["result"] = mutate(rng, res, 0)
		}
		out, _ := json.Marshal(resp)
		_, _ = w.Write(out)
	}
}

// mutate changes one thing of v, at a random depth.
func mutate(rng *rand.Rand, v any, depth int) any {
	if depth < 4 && rng.Intn(3) > 0 {
		switch x := v.(type) {
		case map[string]any:
			if len(x) > 0 {
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				k := keys[rng.Intn(len(keys))]
				x[k] = mutate(rng, x[k], depth+1)
				return x
			}
		case []any:
			if len(x) > 0 {
				i := rng.Intn(len(x))
				x[i] = mutate(rng, x[i], depth+1)
				return x
			}
		}
	}
	switch x := v.(type) {
	case string:
		switch rng.Intn(4) {
		case 0:
			return x + "é"
		case 1:
			if len(x) > 0 {
				return x[:len(x)-1]
			}
		case 2:
			return strings.ToUpper(x) + "\u2028\x00"
		}
		return 42
	case float64:
		return []any{x + 1, -x, 1e300, 0.5, "7", nil}[rng.Intn(6)]
	case []any:
		switch rng.Intn(4) {
		case 0:
			if len(x) > 0 {
				return x[:len(x)-1]
			}
		case 1:
			if len(x) > 0 {
				return append(x, x[0])
			}
		case 2:
			for i, j := 0, len(x)-1; i < j; i, j = i+1, j-1 {
				x[i], x[j] = x[j], x[i]
			}
			return x
		}
		return map[string]any{"items": x}
	case map[string]any:
		if rng.Intn(2) == 0 {
			for k := range x {
				delete(x, k)
				break
			}
		} else {
			x["__proto__"] = map[string]any{"polluted": true}
		}
		return x
	case bool:
		return !x
	case nil:
		return []any{"null", 0, map[string]any{}}[rng.Intn(3)]
	}
	return nil
}

// Reference: DESIGN §7.1 — the harness never crashes on a target's answers. A generated hostile
// bridge, answering a share of calls wrongly in shape, type, length, code and timing, runs through
// every store kit and the dispatcher kit: the process never panics, the run ends with a verdict,
// every check has one of the four verdicts, and none is a harness panic (which would be a bug of
// ours, not a fact about the target). LOOM_HOSTILE_SEEDS=N widens the sweep (make fuzz).
func TestHostileBridgeNeverCrashesTheHarness(t *testing.T) {
	seeds := 6
	if n, err := strconv.Atoi(os.Getenv("LOOM_HOSTILE_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		for _, kinds := range [][]string{certify.Kinds(), {certify.KindDispatcher}} {
			t.Run(fmt.Sprintf("seed-%d/%s", seed, kinds[0]), func(t *testing.T) {
				srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "hostile", Version: "1"},
					EventStore: memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(), ArchiveStore: memory.NewArchiveStore(),
					BranchRegistry: memory.NewBranchRegistry(), ContentStore: memory.NewContentStore(),
					DurableStateStore: memory.NewDurableStateStore(), ReadModelStore: memory.NewReadModelStore(),
					Dispatcher: dispmem.New(dispmem.Config{Targets: []string{"default"}})}, bridge.ServerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				hs := httptest.NewServer(&hostile{inner: srv, rng: rand.New(rand.NewSource(seed)), rate: []float64{0.03, 0.3, 0.8}[seed%3], handshake: bridge.MethodHandshake})
				defer hs.Close()
				rep, err := certify.Run(context.Background(), certify.URLTarget{URL: hs.URL + "/"}, certify.Config{
					Kinds: kinds, Seed: seed, Timeout: 3 * time.Second, OutageWait: time.Second, DeadAfter: 1000})
				if err != nil {
					t.Fatalf("Run = %v, want a report", err)
				}
				if rep.Verdict == "" {
					t.Fatalf("the run ended without a verdict")
				}
				counts := map[kits.Verdict]int{}
				for _, c := range rep.Checks {
					counts[c.Verdict]++
					switch c.Verdict {
					case kits.Pass, kits.Fail, kits.Skip, kits.Unknown:
					default:
						t.Errorf("%s: verdict %q, want pass, fail, skip or unknown", c.ID, c.Verdict)
					}
					if strings.Contains(c.Message, "harness panicked") {
						t.Errorf("%s: the harness panicked on the hostile answers (a harness bug):\n%s", c.ID, c.Message)
					}
				}
				t.Logf("seed %d %v: %s, %d checks %v", seed, kinds, rep.Verdict, len(rep.Checks), counts)
			})
		}
	}
}

// The same sweep through certify kernel: a kernel whose wire answers lie in every way a foreign
// carrier can gets a verdict for every check and never crashes the harness.
func TestHostileKernelNeverCrashesTheHarness(t *testing.T) {
	seeds := 3
	if n, err := strconv.Atoi(os.Getenv("LOOM_HOSTILE_SEEDS")); err == nil && n > 0 {
		seeds = n
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			h := &hostile{inner: reference(t, kernel.Features{}), rng: rand.New(rand.NewSource(seed)),
				rate: []float64{0.03, 0.3, 0.8}[seed%3], handshake: carrier.MethodHandshake}
			srv := httptest.NewServer(h)
			defer srv.Close()
			rep, err := certify.RunKernel(context.Background(), certify.URLTarget{URL: srv.URL + "/"}, certify.Config{
				Kinds: []string{certify.KernelKind}, Seed: seed, Timeout: 3 * time.Second, OutageWait: time.Second, DeadAfter: 1000})
			if err != nil {
				t.Fatalf("RunKernel = %v, want a report", err)
			}
			if rep.Verdict == "" {
				t.Fatalf("the run ended without a verdict")
			}
			counts := map[kits.Verdict]int{}
			for _, c := range rep.Checks {
				counts[c.Verdict]++
				if strings.Contains(c.Message, "harness panicked") {
					t.Errorf("%s: the harness panicked on the hostile kernel's answers (a harness bug):\n%s", c.ID, c.Message)
				}
			}
			t.Logf("seed %d: %s, %d checks %v", seed, rep.Verdict, len(rep.Checks), counts)
		})
	}
}
