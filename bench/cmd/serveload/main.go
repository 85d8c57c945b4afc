// Command serveload presses on a served binary with many ordinary clients for a while and reports
// what the server holds: its resident set and, for serve-store sqlite, the size of its database and
// write-ahead log, sampled as the load runs; then it checks that every acknowledged write is there.
//
//	serveload -bin bin/loom-conform -server store -backend sqlite -clients 32 -duration 10m
//	serveload -bin bin/loom-conform -server kernel -clients 32 -duration 10m
//	serveload -bin bin/loom-conform -server store -backend sqlite -kill-after 20s
//
// A store client appends one envelope at a time to executions of its own (a new one every 100) and
// reads the current one back every tenth append; a kernel client starts an execution, runs a step,
// emits an event and completes it, over and over. With -kill-after the server is killed (SIGKILL)
// then, and the database file is opened again to count the acknowledged appends it kept.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/internal/servetest"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

type config struct {
	bin, server, backend string
	clients              int
	duration, sample     time.Duration
	killAfter            time.Duration
	extra                string
}

// acked is what one store client was told was written: its executions and their lengths.
type acked struct {
	mu    sync.Mutex
	execs map[string]int64
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin/loom-conform", "the loom-conform binary")
	flag.StringVar(&c.server, "server", "store", "store (serve-store) or kernel (serve-kernel)")
	flag.StringVar(&c.backend, "backend", "memory", "serve-store's backend: memory or sqlite")
	flag.IntVar(&c.clients, "clients", 32, "clients at once")
	flag.DurationVar(&c.duration, "duration", time.Minute, "how long the load runs")
	flag.DurationVar(&c.sample, "sample", 10*time.Second, "how often the server's figures are printed")
	flag.DurationVar(&c.killAfter, "kill-after", 0, "SIGKILL the server after this long (serve-store sqlite) and count the acknowledged appends its file kept")
	flag.StringVar(&c.extra, "args", "", "more flags for the serve verb, space-separated")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args := []string{"serve-kernel"}
	dbFile := ""
	if c.server == "store" {
		args = []string{"serve-store", "--backend", c.backend}
		if c.backend == "sqlite" {
			dbFile = filepath.Join(dir, "load.db")
			args = append(args, "--file", dbFile)
		}
	} else if c.server != "kernel" {
		return fmt.Errorf("-server %q: want store or kernel", c.server)
	}
	args = append(args, strings.Fields(c.extra)...)
	s, err := servetest.Start(c.bin, args...)
	if err != nil {
		return err
	}
	killed := false
	defer func() {
		if !killed {
			s.Stop()
		}
	}()
	cur, _, _ := s.RSS()
	fmt.Printf("serveload: %s, %d clients for %v; RSS at start %.1f MB\n", strings.Join(args, " "), c.clients, c.duration, mb(cur))

	ctx, cancel := context.WithTimeout(context.Background(), c.duration)
	defer cancel()
	var ops, errs, refused atomic.Int64
	lastErr := atomic.Value{}
	var wg sync.WaitGroup
	books := make([]*acked, c.clients)
	for i := range c.clients {
		books[i] = &acked{execs: map[string]int64{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if c.server == "store" {
				err = storeClient(ctx, s.URL, i, books[i], &ops)
			} else {
				err = kernelClient(ctx, s.URL, i, &ops, &refused)
			}
			if err != nil && ctx.Err() == nil {
				errs.Add(1)
				lastErr.Store(err.Error())
			}
		}()
	}
	start := time.Now()
	tick := time.NewTicker(c.sample)
	defer tick.Stop()
	var kill <-chan time.Time
	if c.killAfter > 0 {
		kill = time.After(c.killAfter)
	}
	report := func() {
		cur, peak, _ := s.RSS()
		line := fmt.Sprintf("%6.0fs  ops %8d  errors %d  refused %d  RSS %6.1f MB (peak %6.1f MB)", time.Since(start).Seconds(), ops.Load(), errs.Load(), refused.Load(), mb(cur), mb(peak))
		if dbFile != "" {
			line += fmt.Sprintf("  db %6.1f MB  wal %6.1f MB", mb(size(dbFile)), mb(size(dbFile+"-wal")))
		}
		fmt.Println(line)
	}
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
			report()
		case <-kill:
			s.Kill()
			killed = true
			cancel()
			break loop
		}
	}
	wg.Wait()
	if !killed {
		report()
	}
	if e, ok := lastErr.Load().(string); ok {
		fmt.Println("last error:", e)
	}
	if c.server != "store" {
		return nil
	}
	return verify(s, killed, dbFile, books)
}

// verify counts the acknowledged appends that are missing: over the bridge while the server runs,
// from the database file once it was killed.
func verify(s *servetest.Served, killed bool, dbFile string, books []*acked) error {
	ctx := context.Background()
	var es spi.EventStore
	if killed {
		db, err := sqlite.Open(ctx, dbFile)
		if err != nil {
			return fmt.Errorf("reopening %s after the kill: %w", dbFile, err)
		}
		defer db.Close()
		es = db.Events()
	} else {
		cl, err := bridge.Dial(ctx, s.URL, bridge.ClientOptions{})
		if err != nil {
			return err
		}
		defer cl.Close()
		es = cl.EventStore()
	}
	var total, lost int64
	for _, b := range books {
		for exec, n := range b.execs {
			evs, err := es.Read(ctx, exec)
			if err != nil {
				return err
			}
			total += n
			for i := int64(0); i < n; i++ {
				if i >= int64(len(evs)) || evs[i].Sequence != i {
					lost++
				}
			}
		}
	}
	fmt.Printf("acknowledged appends: %d, missing: %d\n", total, lost)
	if lost > 0 {
		return errors.New("acknowledged appends were lost")
	}
	return nil
}

func storeClient(ctx context.Context, url string, i int, book *acked, ops *atomic.Int64) error {
	cl, err := bridge.Dial(ctx, url, bridge.ClientOptions{})
	if err != nil {
		return err
	}
	defer cl.Close()
	es := cl.EventStore()
	payload, _ := json.Marshal(map[string]any{"client": i, "note": strings.Repeat("p", 160)})
	for n := 0; ; n++ {
		exec, seq := fmt.Sprintf("load-%d-%d", i, n/100), int64(n%100)
		ev := spi.Envelope{ID: fmt.Sprintf("%s-%d", exec, seq), WorkflowID: "load", ExecutionID: exec, EventType: "LOAD", Sequence: seq, Timestamp: time.Now().UnixMilli(), Payload: payload}
		if err := es.Append(ctx, exec, []spi.Envelope{ev}, spi.AppendOptions{}); err != nil {
			return err
		}
		book.mu.Lock()
		book.execs[exec] = seq + 1
		book.mu.Unlock()
		ops.Add(1)
		if n%10 == 9 {
			if _, err := es.Read(ctx, exec); err != nil {
				return err
			}
		}
	}
}

func kernelClient(ctx context.Context, url string, i int, ops, refused *atomic.Int64) error {
	cl := carrier.NewClient(url, time.Minute)
	defer cl.Close()
	for n := 0; ; n++ {
		id := fmt.Sprintf("load-%d-%d", i, n)
		var st struct {
			Driver string `json:"driver"`
		}
		if err := cl.Call(ctx, carrier.MethodStart, map[string]any{"flowId": "load", "executionId": id}, &st); err != nil {
			var re *bridge.RPCError
			if errors.As(err, &re) && re.Code == carrier.CodeCapacity {
				refused.Add(1)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
				continue
			}
			return err
		}
		calls := []struct {
			method string
			params map[string]any
		}{
			{"syscall.run", map[string]any{"executionId": id, "driver": st.Driver, "args": map[string]any{"stepId": "s", "toolId": carrier.ToolEcho, "input": map[string]any{"n": n}}}},
			{"syscall.emit", map[string]any{"executionId": id, "driver": st.Driver, "args": map[string]any{"eventType": "progress", "payload": map[string]any{"n": n}}}},
			{carrier.MethodComplete, map[string]any{"executionId": id, "driver": st.Driver, "output": map[string]any{"n": n}}},
		}
		for _, c := range calls {
			if err := cl.Call(ctx, c.method, c.params, nil); err != nil {
				return fmt.Errorf("%s: %w", c.method, err)
			}
		}
		ops.Add(1)
	}
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func mb(b int64) float64 { return float64(b) / 1e6 }
