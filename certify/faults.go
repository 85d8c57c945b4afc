package certify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/faultproxy"
)

// FaultTarget is what a fault check runs against: the bridge behind a fault proxy, and a way to
// freeze the bridge process when the target has one.
type FaultTarget struct {
	Client *bridge.Client // dialled through Proxy
	Proxy  *faultproxy.Proxy
	Pauser Pauser // nil when the target cannot be paused
	Token  string // the bearer token the bridge requires ("" for none)
}

// FaultCase is what a fault check gets.
type FaultCase = kits.Case[*FaultTarget]

type faultProxy = faultproxy.Proxy

func newFaultProxy(url string) (*faultProxy, error) { return faultproxy.New(url) }

// FaultKit holds the checks `certify --faults` adds: a durability workload of batched appends runs
// while the link is cut (every few milliseconds) or the store is paused, then the logs are judged (I-BRIDGE-7).
func FaultKit() kits.Kit[*FaultTarget] {
	type C = kits.Check[*FaultTarget]
	return kits.Kit[*FaultTarget]{Name: "faults", Checks: []C{
		{ID: "faults/cut-connections", Clauses: []string{"I-BRIDGE-7", "I-STORE-2"}, Level: spec.Must,
			Doc: "with every connection cut every few milliseconds, no acknowledged append is lost and no batch is torn", Run: fkCut},
		{ID: "faults/pause-resume", Clauses: []string{"I-BRIDGE-7", "I-STORE-2"}, Level: spec.Must,
			Doc: "with the store process frozen and thawed mid-workload, no acknowledged append is lost and no batch is torn", Run: fkPause},
	}}
}

func fkCut(ctx context.Context, c *FaultCase) error {
	return durability(ctx, c, "cut", func(stop <-chan struct{}) error {
		for {
			select {
			case <-stop:
				return nil
			case <-time.After(time.Duration(5+c.Rand.Intn(35)) * time.Millisecond):
				c.Store.Proxy.Cut()
			}
		}
	})
}

func fkPause(ctx context.Context, c *FaultCase) error {
	p := c.Store.Pauser
	if p == nil {
		return c.Skip("faults/pause-resume: the target cannot be paused (only --image and --exec targets can)")
	}
	return durability(ctx, c, "pause", func(stop <-chan struct{}) error {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return nil
			case <-time.After(150 * time.Millisecond):
			}
			if err := p.Pause(ctx); err != nil {
				return fmt.Errorf("pausing the target: %w", err)
			}
			time.Sleep(time.Duration(300+c.Rand.Intn(400)) * time.Millisecond)
			if err := p.Resume(context.WithoutCancel(ctx)); err != nil {
				return fmt.Errorf("resuming the target: %w", err)
			}
		}
	})
}

// workloadBudget bounds the writers of one fault check.
const workloadBudget = 4 * time.Second

type sentBatch struct {
	from, n int64
	acked   bool
}

// durability runs writers over the proxy while inject strikes, then checks every log.
func durability(ctx context.Context, c *FaultCase, name string, inject func(stop <-chan struct{}) error) error {
	if c.Store.Client.EventStore() == nil {
		return c.Skip("the bridge does not serve EventStore")
	}
	wc, err := bridge.Dial(ctx, c.Store.Proxy.URL(), bridge.ClientOptions{CallTimeout: 800 * time.Millisecond, Token: c.Store.Token})
	if err != nil {
		return err
	}
	defer wc.Close()
	es := wc.EventStore()
	const writers, rounds = 4, 40
	execs := make([]string, writers)
	sent := make([]map[string]*sentBatch, writers)
	for w := range execs {
		execs[w] = c.ExecID(fmt.Sprintf("fault-%s-w%d", name, w))
		sent[w] = map[string]*sentBatch{}
	}
	stop := make(chan struct{})
	injErr := make(chan error, 1)
	go func() { injErr <- inject(stop) }()
	// The workload stops after its rounds or its time budget, whichever comes first, so a slow
	// machine gets fewer rounds rather than a timeout.
	wctx, cancel := context.WithTimeout(ctx, workloadBudget)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			x, head := execs[w], int64(0)
			for i := 0; i < rounds && wctx.Err() == nil; i++ {
				tag := fmt.Sprintf("w%d-b%d", w, i)
				n := int64(1 + (i%4)*13) // 1, 14, 27, 40: large enough to be cut mid-batch
				b := faultBatch(x, head, n, tag)
				err := es.Append(wctx, x, b, spi.AppendOptions{})
				mu.Lock()
				sent[w][tag] = &sentBatch{from: head, n: n, acked: err == nil}
				mu.Unlock()
				if err == nil {
					head += n
					continue
				}
				// Unknown or refused: learn the head again (retrying through the faults).
				for wctx.Err() == nil {
					got, rerr := es.Read(ctx, x)
					if rerr == nil {
						head = int64(len(got))
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	// Writers stopped by the budget may not know their head; the judge does not need it.
	if err := <-injErr; err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// Judge through the direct client, after the faults stopped.
	direct := c.Store.Client.EventStore()
	for w, x := range execs {
		got, err := direct.Read(ctx, x)
		if err != nil {
			return err
		}
		if err := judge(c, x, got, sent[w]); err != nil {
			return err
		}
	}
	if c.Store.Proxy.Cuts() == 0 && c.Store.Pauser == nil {
		return errors.New("no fault was injected (the workload finished before the first cut)")
	}
	return nil
}

func faultBatch(x string, from, n int64, tag string) []spi.Envelope {
	out := make([]spi.Envelope, n)
	for i := range out {
		seq := from + int64(i)
		out[i] = spi.Envelope{ID: fmt.Sprintf("%s#%s#%d", x, tag, i), WorkflowID: "wf-faults", ExecutionID: x,
			EventType: "FAULT_PROBE", Sequence: seq, Timestamp: 1_700_000_000_000 + seq,
			Payload: json.RawMessage(fmt.Sprintf(`{"batch":%q,"i":%d,"of":%d}`, tag, i, n))}
	}
	return out
}

// judge checks one log: dense from 0, made of whole batches that were sent, every acknowledged batch
// present.
func judge(c *FaultCase, x string, log []spi.Envelope, sent map[string]*sentBatch) error {
	seen := map[string]bool{}
	for i := 0; i < len(log); {
		var p struct {
			Batch string `json:"batch"`
			I, Of int64
		}
		if log[i].Sequence != int64(i) {
			return c.Failf("Read", fmt.Sprintf("%q", x), fmt.Sprintf("sequence %d at index %d", log[i].Sequence, i), "a dense log")
		}
		if err := json.Unmarshal(log[i].Payload, &p); err != nil || p.Batch == "" {
			return c.Failf("Read", fmt.Sprintf("%q", x), fmt.Sprintf("payload %s at sequence %d", log[i].Payload, i), "a payload the workload wrote")
		}
		b, ok := sent[p.Batch]
		if !ok || p.I != 0 || seen[p.Batch] {
			return c.Failf("Read", fmt.Sprintf("%q", x), fmt.Sprintf("envelope %d of batch %s at sequence %d", p.I, p.Batch, i), "the first envelope of a batch sent once")
		}
		seen[p.Batch] = true
		for k := int64(0); k < b.n; k++ {
			j := i + int(k)
			var q struct {
				Batch string `json:"batch"`
				I     int64  `json:"i"`
			}
			if j >= len(log) || json.Unmarshal(log[j].Payload, &q) != nil || q.Batch != p.Batch || q.I != k {
				return c.Failf("Read", fmt.Sprintf("%q", x), fmt.Sprintf("batch %s torn: %d of its %d envelopes stored contiguously", p.Batch, k, b.n), "whole batches only (I-STORE-2)")
			}
		}
		i += int(b.n)
	}
	for tag, b := range sent {
		if b.acked && !seen[tag] {
			return c.Failf("Append", fmt.Sprintf("%q, [seq %d..%d] (batch %s)", x, b.from, b.from+b.n-1, tag), "acknowledged, but not in the log after the faults", "every acknowledged append stored")
		}
	}
	return nil
}
