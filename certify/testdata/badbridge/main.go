// Command badbridge is a store bridge that misbehaves on purpose, for the certify tests: it serves
// a memory EventStore but hangs, crashes, answers malformed JSON, misstates its handshake, claims a
// future SPI, sends every error as -32603, or answers bad requests with HTTP 500.
//
//	badbridge -mode hang|crash|malformed|lying|future|wrongcodes|fragile [-after N]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// minimal has only the required EventStore methods.
type minimal struct{ s *memory.EventStore }

func (m minimal) Append(ctx context.Context, id string, e []spi.Envelope, o spi.AppendOptions) error {
	return m.s.Append(ctx, id, e, o)
}
func (m minimal) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	return m.s.Read(ctx, id)
}

func main() {
	mode := flag.String("mode", "hang", "hang, crash, malformed or lying")
	after := flag.Int64("after", 20, "crash: calls answered before the process dies")
	flag.Parse()
	var store spi.EventStore = memory.NewEventStore()
	if *mode == "lying" {
		store = minimal{memory.NewEventStore()}
	}
	srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "badbridge " + *mode, Version: "0"},
		EventStore: store}, bridge.ServerOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var calls atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if *mode == "fragile" && (req.Method == "" || !json.Valid(body) || bytes.HasPrefix(bytes.TrimSpace(body), []byte("["))) {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		if *mode == "fragile" {
			if _, ok := bridge.LookupMethod(req.Method); !ok && req.Method != bridge.MethodHandshake {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32603,"message":"no"}}`))
				return
			}
		}
		if *mode == "wrongcodes" {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, r)
			out := rec.Body.Bytes()
			var resp map[string]any
			if json.Unmarshal(out, &resp) == nil {
				if e, ok := resp["error"].(map[string]any); ok && e["code"].(float64) > -32100 && e["code"].(float64) <= -32000 {
					e["code"] = bridge.CodeInternalError
					delete(e, "data")
					out, _ = json.Marshal(resp)
				}
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(out)
			return
		}
		if req.Method == bridge.MethodHandshake {
			if *mode == "future" {
				hs := srv.Handshake()
				sup := hs.Seams["EventStore"]
				sup.SpiVersion = "3.0.0"
				hs.Seams["EventStore"] = sup
				res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": hs})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(res)
				return
			}
			if *mode == "lying" {
				hs := srv.Handshake()
				hs.Seams["EventStore"] = bridge.SeamSupport{SpiVersion: "2.6.0", Methods: []string{"append", "read", "readRange", "acquireFence", "deleteExecution"}}
				res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": hs})
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(res)
				return
			}
			srv.ServeHTTP(w, r)
			return
		}
		switch *mode {
		case "hang":
			<-r.Context().Done()
			return
		case "crash":
			if calls.Add(1) > *after {
				fmt.Fprintln(os.Stderr, "badbridge: crashing on purpose")
				os.Exit(3)
			}
		case "malformed":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":[{"id":`))
			return
		}
		srv.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("listening http://%s/\n", ln.Addr())
	_ = http.Serve(ln, h)
}
