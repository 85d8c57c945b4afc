package kernelkit

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
)

// The generator of kernel/explore: a flow script of the golden grammar (goldens/flowscript) and
// the driver that drives it, as one explore.Script whose steps are the script's top-level blocks
// ("flow:<op>", each a list of statements kept together: a statement and the emit that records
// its answer), the execution's budget ("budget") and the driver's actions ("driver:<do>"), so
// that shrinking drops whole blocks and actions and the minimal script is still a flow script.

// Step ops of a kernel exploration script.
const (
	xFlow   = "flow:"   // + the block's first statement's op; args: [statement, …]
	xDriver = "driver:" // + the action's do; args: the action
	xBudget = "budget"  // args: the execution's caps
)

// exploreNames are the ids, gates, topics and event-type tails a script names: ids a kernel must
// keep apart although they differ by one delimiter, a case, a normal form or a long tail, and ids
// whose code points JSON escapes or UTF-16 orders apart from UTF-8 (spec §2: a step is the id its
// caller gave).
var exploreNames = []string{
	"a:b", "a/b", "a.b", "a b", "a|b", `a\b`, "a%3Ab", "a", "A",
	"caf\u00e9", "cafe\u0301", // the same text in NFC and NFD
	"\U0001F9F5", "\uFF21", "\uE000", "x\u2028y", `q"t`,
	"L" + strings.Repeat("x", 300) + "1", "L" + strings.Repeat("x", 300) + "2",
}

// xgen makes one script.
type xgen struct {
	r      *rand.Rand
	names  []string // not yet used
	n      int
	values []string
	ext    bool // the conformance extension is served: sleeps, crashes and recoveries
	wave2  bool // receive is served
	clock  int64
	blocks []explore.Step
	acts   []explore.Step
	parks  int
	// x draws what later generations added (explore_gen_more.go), apart from r, so that the
	// scripts r alone makes stay as they were
	x *rand.Rand
	// dupKey: the start input names a key twice (unless the script crashes), so that certify's
	// default rounds read a repeated key whatever the seed
	dupKey bool
}

// exploreGen makes round's script of a run seeded seed; ext and wave2 say what the kernel serves.
func exploreGen(seed int64, round int, ext, wave2 bool) explore.Script {
	g := &xgen{r: rand.New(rand.NewSource(seed*104729 + int64(round))), values: exploreValues(), ext: ext, wave2: wave2,
		clock: flowscript.DefaultClock, x: rand.New(rand.NewSource(seed*7919 + int64(round) + 1)), dupKey: round%6 == 1}
	g.names = append(g.names, exploreNames...)
	g.r.Shuffle(len(g.names), func(i, j int) { g.names[i], g.names[j] = g.names[j], g.names[i] })
	// the normal forms side by side, often: a kernel that normalises one serves the other
	if g.r.Intn(2) == 0 {
		g.names = slices.DeleteFunc(g.names, func(n string) bool { return n == "caf\u00e9" || n == "cafe\u0301" })
		g.names = append([]string{"caf\u00e9", "cafe\u0301"}, g.names...)
	}
	s := explore.Script{Check: ExploreCheck, Seed: seed, Round: round}
	if g.r.Intn(3) == 0 {
		caps := map[string]float64{"tokens": float64(3 + g.r.Intn(8))}
		if g.r.Intn(2) == 0 {
			caps["costUsd"] = float64(1+g.r.Intn(4)) / 4
		}
		s.Steps = append(s.Steps, explore.Step{Op: xBudget, Args: explore.Args(caps)})
	}
	crash := ext && g.r.Intn(4) == 0
	if crash {
		// the crash lands on the first step's STEP_COMPLETED (the third append), as
		// the crash goldens' do; the run's end is never where it lands
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "crash", At: 3}))
		id := g.name()
		b, _ := json.Marshal([]flowscript.Stmt{{Op: "execute", ID: id, Tool: []string{"counter", "echo"}[g.r.Intn(2)], Input: raw(`{"key":` + string(mustJSON(id)) + `}`)}})
		g.blocks = append(g.blocks, explore.Step{Op: xFlow + "execute", Args: b})
	}
	g.acts = append(g.acts, action(flowscript.DriverAction{Do: "start", Input: g.startInput(crash)}))
	if crash {
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "recover"}))
	}
	for range 3 + g.r.Intn(6) {
		g.block()
	}
	if g.r.Intn(4) == 0 {
		// after the run's end: a resume, refused (spec §5: only a suspended execution is resumed),
		// appending nothing
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resume", EventType: g.name(), Payload: raw(g.value())}))
	}
	g.ending()
	s.Steps = append(append(s.Steps, g.blocks...), g.acts...)
	return s
}

// exploreValues are the round-trip corpus's values a flow script can carry: all but the deeply
// nested one, which inside a script's own nesting passes the format's depth limit.
func exploreValues() []string {
	var out []string
	for _, v := range kits.WireValues() {
		if !strings.HasPrefix(v, `{"d":[`) {
			out = append(out, v)
		}
	}
	return out
}

// name is a fresh id: one of exploreNames while any is left, then a plain one.
func (g *xgen) name() string {
	if len(g.names) > 0 {
		n := g.names[0]
		g.names = g.names[1:]
		return n
	}
	g.n++
	return fmt.Sprintf("s%d", g.n)
}

func (g *xgen) value() string { return g.values[g.r.Intn(len(g.values))] }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func action(a flowscript.DriverAction) explore.Step {
	return explore.Step{Op: xDriver + a.Do, Args: explore.Args(a)}
}

// answered is st bound, then its answer emitted: the answer a kernel gave is in the log.
func (g *xgen) answered(st flowscript.Stmt) []flowscript.Stmt {
	g.n++
	st.Bind = fmt.Sprintf("v%d", g.n)
	return []flowscript.Stmt{st, {Op: "emit", EventType: "x.answer." + st.Bind, Payload: raw(`{"$ref":"` + st.Bind + `"}`)}}
}

// block adds one top-level block, and the driver's actions a park needs.
func (g *xgen) block() {
	var body []flowscript.Stmt
	switch k := g.r.Intn(15); {
	case k == 14:
		// a step that outlives its timeout: an untyped failure, recorded untyped (spec §4.1)
		body = g.answered(flowscript.Stmt{Op: "execute", ID: g.name(), Tool: "slow", TimeoutMs: 5, OnError: flowscript.OnErrorContinue,
			Input: raw(`{"ms":60000,"value":1}`)})
	case k < 6:
		body = g.answered(g.plain(2))
	case k < 8:
		body = g.answered(g.parallel(0))
	case k == 8:
		id := g.name()
		body = g.answered(flowscript.Stmt{Op: "execute", ID: id, Kind: "human"})
		g.wrongGate(id)
		g.resume(id)
	case k == 9:
		gate := g.name()
		body = g.answered(flowscript.Stmt{Op: "suspend", On: gate})
		if g.r.Intn(3) == 0 {
			// refused: another gate, or a kernel event type (spec §5), appending nothing
			other := []string{"STEP_COMPLETED", "EXECUTION_COMPLETED", gate + "!"}[g.r.Intn(3)]
			g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resume", EventType: other, Payload: raw(g.value())}))
		}
		if g.r.Intn(4) == 0 {
			// a resumeAs naming a kernel event type: refused by every rule of a resume (spec §5)
			flow, _ := json.Marshal(map[string]any{"format": flowscript.Format, "id": "explore-target", "body": []flowscript.Stmt{g.emit()}})
			g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resumeAs", Flow: flow, EventType: "STEP_COMPLETED", Payload: raw(g.value())}))
		}
		if g.r.Intn(4) == 0 {
			g.resumeAs(gate)
		} else {
			g.resume(gate)
		}
	case k == 10 && g.ext:
		body = g.answered(flowscript.Stmt{Op: "sleep", Ms: int64(1 + g.r.Intn(5000))})
		g.fire(10_000)
	case k == 10 || k == 11:
		g.clock += 10_000
		body = g.answered(flowscript.Stmt{Op: "sleepUntil", WakeAt: g.clock + int64(g.r.Intn(5000))})
		g.fire(10_000)
	case k == 12 && g.wave2:
		topic := g.name()
		body = g.answered(flowscript.Stmt{Op: "receive", Topic: topic})
		g.acts = append(g.acts, action(flowscript.DriverAction{Do: "deliver", Topic: topic, MessageID: g.name(), Message: raw(g.value())}))
	default:
		body = []flowscript.Stmt{g.emit()}
		if g.r.Intn(2) == 0 {
			body = append(body, body[0]) // the same content twice
		}
	}
	b, _ := json.Marshal(body)
	g.blocks = append(g.blocks, explore.Step{Op: xFlow + body[0].Op, Args: b})
}

func (g *xgen) resume(gate string) {
	g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resume", EventType: gate, Payload: raw(g.value())}))
}

// resumeAs migrates the execution parked on gate to another flow (with a transform), answering
// the park.
func (g *xgen) resumeAs(gate string) {
	target := map[string]any{"format": flowscript.Format, "id": "explore-target", "body": []flowscript.Stmt{g.plain(1), g.emit()}}
	flow, _ := json.Marshal(target)
	g.acts = append(g.acts, action(flowscript.DriverAction{Do: "resumeAs", Flow: flow, EventType: gate, Payload: raw(g.value()),
		Transform: &flowscript.Transform{Merge: raw(`{"migrated":` + g.value() + `}`)}}))
}

// fire fires the timers due after the last park: the driver's clock moves past it.
func (g *xgen) fire(after int64) {
	g.clock += after
	g.acts = append(g.acts, action(flowscript.DriverAction{Do: "fireTimers", At: g.clock}))
}

func (g *xgen) emit() flowscript.Stmt {
	return flowscript.Stmt{Op: "emit", EventType: "x." + g.name(), Payload: raw(g.value())}
}

// plain is a statement that never parks: a step that succeeds, fails typed, degrades, fails
// untyped (with retries), meters, a decision, or (depth > 0) a parallel.
func (g *xgen) plain(depth int) flowscript.Stmt {
	id := g.name()
	switch g.r.Intn(10) {
	case 0:
		st := flowscript.Stmt{Op: "execute", ID: id, Tool: "fail-typed", OnError: flowscript.OnErrorContinue,
			Input: raw(`{"channel":"declined","payload":` + g.value() + `}`)}
		if g.r.Intn(2) == 0 {
			st.Errors = []string{"declined"}
		}
		return st
	case 1:
		// degraded: an undeclared channel, or a payload past the 16 KiB cap (spec §4.1)
		if g.r.Intn(2) == 0 {
			return flowscript.Stmt{Op: "execute", ID: id, Tool: "fail-undeclared", OnError: flowscript.OnErrorContinue}
		}
		return flowscript.Stmt{Op: "execute", ID: id, Tool: "fail-typed", OnError: flowscript.OnErrorContinue,
			Input: raw(`{"channel":"declined","payload":{"blob":"` + strings.Repeat("z", 17<<10) + `"}}`)}
	case 2:
		return flowscript.Stmt{Op: "execute", ID: id, Tool: "fail-untyped", Retry: g.r.Intn(3), OnError: flowscript.OnErrorContinue,
			Input: raw(`{"message":` + string(mustJSON(g.name())) + `}`)}
	case 3:
		return flowscript.Stmt{Op: "execute", ID: id, Tool: "fail-until", Retry: 1 + g.r.Intn(2), OnError: flowscript.OnErrorContinue,
			Input: raw(`{"succeedOn":2,"value":` + g.value() + `}`)}
	case 4:
		in := fmt.Sprintf(`{"tokens":%d,"value":%s`, 1+g.r.Intn(4), g.value())
		if g.r.Intn(2) == 0 {
			in += fmt.Sprintf(`,"costUsd":%g`, float64(1+g.r.Intn(3))/8)
		}
		return flowscript.Stmt{Op: "execute", ID: id, Tool: "meter", Input: raw(in + "}"), OnError: flowscript.OnErrorContinue}
	case 5:
		if g.r.Intn(3) == 0 {
			return flowscript.Stmt{Op: "decide", ID: id, Fails: true, OnError: flowscript.OnErrorContinue}
		}
		return flowscript.Stmt{Op: "decide", ID: id, Choice: raw(g.value())}
	case 6, 7:
		if depth > 0 {
			return g.parallel(depth - 1)
		}
	}
	return flowscript.Stmt{Op: "execute", ID: id, Tool: "echo", Input: raw(g.value())}
}

// parallel is a parallel of two or three branches of one to three statements, maybe nested,
// maybe with a failing branch; its failure is caught.
func (g *xgen) parallel(depth int) flowscript.Stmt {
	st := flowscript.Stmt{Op: "parallel", OnError: flowscript.OnErrorContinue}
	for range 2 + g.r.Intn(2) {
		var br []flowscript.Stmt
		for range 1 + g.r.Intn(3) {
			if g.r.Intn(4) == 0 {
				br = append(br, g.emit())
				continue
			}
			p := g.plain(depth)
			if p.Op != "parallel" && g.r.Intn(3) != 0 {
				p.OnError = "" // a failing step fails its branch, and the branch the parallel
			}
			br = append(br, p)
		}
		st.Branches = append(st.Branches, br)
	}
	return st
}
