package deploysim

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sync"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/fold"
	storemem "github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// sim is one run. Exactly one goroutine acts at a time (the scheduler, or the flow goroutine of the
// worker it is waiting for), so every draw from rng happens in a seed-determined order; mu only
// makes that hand-over visible to the race detector.
type sim struct {
	cfg Config
	sc  Scenario
	rng *rand.Rand
	mu  sync.Mutex

	now    int64
	events *storemem.EventStore
	disp   *memory.Dispatcher
	snaps  map[string]*snapStore // writer profile -> its snapshot store

	workers []*worker
	born    int
	execs   []execSpec

	// what happened, for the invariants
	effects  []effectCall
	acked    []ackedAppend
	refusals []refusal
	claims   []claimRec
	leases   map[string]*leaseRec
	answered map[string]bool
	res      Result
	// the outside world's view of each execution, refolded only when an append touched it
	views map[string]view
	dirty map[string]bool
}

type view struct {
	evs []spi.Envelope
	st  fold.State
}

type execSpec struct {
	id, flow string
	input    json.RawMessage
}

type effectCall struct {
	exec, step, tool, worker string
	atMostOnce               bool
	attempt                  int
	completedBefore          bool // the log already held the step's completion
	superseded               bool // the worker's lease had been superseded
}

type ackedAppend struct {
	worker, token string
	env           spi.Envelope
	afterLost     bool // the worker had been told its lease was lost
	superseded    bool // another worker had claimed the execution since
}

type refusal struct {
	worker, token, exec string
	err                 error
	superseded          bool
	opening             bool // the first append of the worker's run: unfenced, guarded by optimistic concurrency (I-KERNEL-20)
}

type claimRec struct {
	exec, worker, token string
	at                  int64
	overlapping         string // a live, unacked lease of another worker on the same execution
}

type leaseRec struct {
	exec, worker string
	expires      int64
	acked        bool
	superseded   bool
	lost         bool // the worker was told so
}

func (s *sim) clock() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now++
	return s.now
}

func (s *sim) advance(ms int64) {
	s.mu.Lock()
	s.now += ms
	s.mu.Unlock()
}

func (s *sim) permille(p int) bool { return p > 0 && s.rng.Intn(1000) < p }

// Run runs one simulation and checks every invariant.
func Run(cfg Config) Result {
	cfg = cfg.withDefaults()
	res := Result{Scenario: cfg.Scenario, Seed: cfg.Seed, Workers: cfg.Workers, Repro: cfg.Repro(), Violations: []Violation{}}
	sc, err := LookupScenario(cfg.Scenario)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	s := newSim(cfg, sc)
	s.res = res
	s.run()
	s.check()
	return s.res
}

func newSim(cfg Config, sc Scenario) *sim {
	s := &sim{cfg: cfg, sc: sc, rng: rand.New(rand.NewSource(cfg.Seed)), now: 1_700_000_000_000,
		events: storemem.NewEventStore(), snaps: map[string]*snapStore{}, leases: map[string]*leaseRec{}, answered: map[string]bool{},
		views: map[string]view{}, dirty: map[string]bool{}}
	s.disp = memory.New(memory.Config{Targets: []string{"default"}, Now: s.clock,
		Hooks: memory.Hooks{IgnoreLease: cfg.Broken.DoubleDeliver, LoseExpired: cfg.Broken.LoseOnCrash}})
	for i := range cfg.Orders {
		s.execs = append(s.execs, execSpec{id: fmt.Sprintf("order-%d", i), flow: flowOrder, input: mustJSON(map[string]any{"order": i, "qty": 1 + i%3})})
	}
	for i := range cfg.Batches {
		s.execs = append(s.execs, execSpec{id: fmt.Sprintf("batch-%d", i), flow: flowBatch, input: mustJSON(map[string]any{"batch": i})})
	}
	for i := range cfg.Workers {
		s.workers = append(s.workers, s.newWorker(sc.Profiles[i%len(sc.Profiles)], sc.Code))
	}
	return s
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *sim) snapStoreFor(profile string) *snapStore {
	if s.snaps[profile] == nil {
		s.snaps[profile] = &snapStore{SnapshotStore: storemem.NewSnapshotStore(), writer: profile}
	}
	return s.snaps[profile]
}

// newestProfile is the newest profile any worker of the scenario runs.
func (s *sim) newestProfile() string {
	newest, _ := manifest.ParseVersion(s.sc.Profiles[0])
	for _, p := range append(append([]string{}, s.sc.Profiles...), s.sc.Replace...) {
		if v, err := manifest.ParseVersion(p); err == nil && newest.Less(v) {
			newest = v
		}
	}
	return newest.String()
}

func (s *sim) run() {
	ctx := context.Background()
	arrive := map[int][]execSpec{}
	for _, e := range s.execs {
		at := s.rng.Intn(s.cfg.Steps/2 + 1)
		arrive[at] = append(arrive[at], e)
	}
	replaceAt := map[int]int{}
	for k := range s.sc.Replace {
		replaceAt[(k+1)*s.cfg.Steps/(len(s.sc.Replace)+1)] = k
	}
	for step := 0; step < s.cfg.Steps; step++ {
		s.res.Steps++
		s.advance(1 + int64(s.rng.Intn(40)))
		for _, e := range arrive[step] {
			s.start(ctx, e)
		}
		if k, ok := replaceAt[step]; ok {
			s.replace(k)
		}
		s.maybeWake(80)
		if s.rng.Intn(1000) < 200 {
			s.revive()
		}
		w := s.pick()
		if w == nil {
			continue
		}
		w.arm()
		w.turn(ctx)
		s.drive(ctx, 60)
	}
	s.settle(ctx)
}

func (s *sim) start(ctx context.Context, e execSpec) {
	if err := s.disp.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: e.id, FlowID: e.flow, Hints: mustJSON(map[string]any{"input": e.input})}); err != nil {
		panic(err)
	}
}

// settle lets the fleet finish without faults: zombies wake, dead workers come back, leases expire.
func (s *sim) settle(ctx context.Context) {
	for _, w := range s.workers {
		if w.paused != nil {
			w.wake()
		}
	}
	for i, w := range s.workers {
		if w.dead {
			s.workers[i] = s.newWorker(w.profile.Version(), w.code)
		}
	}
	idle := 0
	for step, most := 0, settleBound(len(s.execs)); step < most && idle < 4; step++ {
		s.res.Steps++
		s.advance(1 + int64(s.rng.Intn(40)))
		progressed := false
		for _, i := range s.rng.Perm(len(s.workers)) {
			if s.workers[i].turn(ctx) {
				progressed = true
			}
		}
		s.drive(ctx, 1000)
		if !progressed {
			idle++
			s.advance(leaseTTL + 1)
		} else {
			idle = 0
		}
	}
}

func (s *sim) pick() *worker {
	var live []*worker
	for _, w := range s.workers {
		if !w.dead && w.paused == nil {
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[s.rng.Intn(len(live))]
}

// replace swaps worker k%N for a fresh one with the k-th replacement profile (and the upgraded code).
func (s *sim) replace(k int) {
	i := k % len(s.workers)
	old := s.workers[i]
	if old.paused != nil {
		old.wake()
	}
	code := s.sc.Code
	if s.sc.UpgradeCode != 0 {
		code = s.sc.UpgradeCode
	}
	s.workers[i] = s.newWorker(s.sc.Replace[k], code)
}

func (s *sim) revive() {
	for i, w := range s.workers {
		if w.dead {
			s.workers[i] = s.newWorker(w.profile.Version(), w.code)
			return
		}
	}
}

func (s *sim) maybeWake(permille int) {
	for _, w := range s.workers {
		if w.paused != nil && s.permille(permille) {
			w.wake()
		}
	}
}
