package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Wire scripts: a round of kernel/explore that is not a flow script but a sequence of raw wire
// calls on one execution — the calls a driver following a flow script never makes as well as the
// ones it does: a call at the flow's top while its branches run, a join before every branch ended,
// a call and an end in a branch already joined, a human step named as a kernel event type and
// resumes naming its gate, another type or a kernel type, a completion. Each call goes to the
// kernel and to the reference kernel served in process over loopback; their answers (answered,
// parked, or the error's code and kind) must agree, and so must the logs at the end. Where the
// kernel makes a legal choice the reference does not (parking a human step whose id is a kernel
// event type, I-KERNEL-22), the rest of the execution is held to what every option demands: no
// resume naming a kernel event type is taken (spec §5).

// xWire prefixes a wire script's steps; args: {"branch": [...], "args": {...}} for a syscall,
// {"eventType": ...} for a resume ("$gate": the gate the kernel's own getState shows).
const xWire = "wire:"

// wireRound reports whether round is a wire script: every third, from the third, so the default
// rounds hold four.
func wireRound(round int) bool { return round%3 == 2 }

// exploreWireClauses are the clauses of a wire call whose answer differs, by the call's op.
var exploreWireClauses = map[string][]string{
	"parallel": {"I-WIRE-11", "I-WIRE-52", "I-WIRE-25"},
	"execute":  {"I-WIRE-52", "I-WIRE-25", "S2.execute.served-not-rerun", "S41.typed.untyped-at-least-once", "S8.budget.quota-exceeded", "I-WIRE-17"},
	"emit":     {"S3.emit.serve-append", "S3.emit.serve-skip"},
	"suspend":  {"S5.suspend.config"},
	"decide":   {"S4.v1_18.decision-context-policy"},
	"human":    {"S5.ingress.human-step-entry", "S5.ingress.kernel-namespace"},
	"resume":   {"S5.ingress.gate-match", "S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing"},
	"complete": {"I-WIRE-52", "A26.wire.kernel-authoritative"},
}

// wireArgs are a wire step's arguments.
type wireArgs struct {
	Branch    []int           `json:"branch,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	EventType string          `json:"eventType,omitempty"`
}

// exploreWireGen makes the wire script of round. Every wire script holds every kind of call it
// knows, so that certify's default rounds reach each class whatever the seed; the seed draws the
// shapes (how many branches, which fail, where the out-of-order calls fall, the human step's id).
func exploreWireGen(seed int64, round int) explore.Script {
	r := rand.New(rand.NewSource(seed*15485863 + int64(round)))
	s := explore.Script{Check: ExploreCheck, Seed: seed, Round: round}
	add := func(op string, a wireArgs) {
		s.Steps = append(s.Steps, explore.Step{Op: xWire + op, Args: explore.Args(a)})
	}
	step := func(id string) json.RawMessage {
		return explore.Args(map[string]any{"task": map[string]any{"id": id, "toolId": "echo"}, "input": id})
	}
	// a budget over two dimensions, the second the tighter: metered steps pass it at the end
	add("budget", wireArgs{Args: json.RawMessage(`{"costUsd":5,"tokens":3}`)})
	// re-driven after a park and its resume: an emit the log holds is appended again after a
	// decision the re-run records live; a degraded failure runs again. Each leads on every other
	// wire round (what a re-drive re-makes differs after the first).
	const degraded, note = `{"task":{"id":"d","toolId":"fail-undeclared"},"input":1}`, `{"eventType":"x.note","payload":{"n":1}}`
	redrives := []func(){func() {
		add("emit", wireArgs{Args: json.RawMessage(note)})
		add("suspend", wireArgs{Args: json.RawMessage(`{"on":"g"}`)})
		add("resume", wireArgs{EventType: "$gate"})
		add("decide", wireArgs{Args: json.RawMessage(`{"id":"fresh","choice":"a"}`)})
		add("emit", wireArgs{Args: json.RawMessage(note)})
	}, func() {
		add("execute", wireArgs{Args: json.RawMessage(degraded)})
		add("suspend", wireArgs{Args: json.RawMessage(`{"on":"h"}`)})
		add("resume", wireArgs{EventType: "$gate"})
		add("execute", wireArgs{Args: json.RawMessage(degraded)})
	}}
	if (round/3)%2 == 1 {
		redrives[0], redrives[1] = redrives[1], redrives[0]
	}
	for _, f := range redrives {
		f()
	}
	// a parallel: calls out of order while its branches run (at the top, a join), two failing
	// branches at least (the join names the first), calls in a branch already joined
	n := 3 + r.Intn(2)
	add("parallel", wireArgs{Args: json.RawMessage(`{"branches":` + fmt.Sprint(n) + `}`)})
	for i := range n {
		if r.Intn(2) == 0 {
			add("execute", wireArgs{Branch: []int{i}, Args: step(fmt.Sprintf("b%d", i))})
		}
	}
	type call struct {
		op string
		a  wireArgs
	}
	join := json.RawMessage(`{"join":true}`)
	early := []call{{"execute", wireArgs{Args: step("early")}}, {"parallel", wireArgs{Args: join}}}
	r.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
	add(early[0].op, early[0].a)
	ok := r.Intn(n - 2) // the branches after it fail: two at least
	for i := range n {
		if i == 1 {
			add(early[1].op, early[1].a)
		}
		end := `{"end":{"output":` + fmt.Sprint(i) + `}}`
		if i > ok {
			end = `{"end":{"error":{"message":"b` + fmt.Sprint(i) + ` failed"}}}`
		}
		add("parallel", wireArgs{Branch: []int{i}, Args: json.RawMessage(end)})
	}
	add("parallel", wireArgs{Args: join})
	add("execute", wireArgs{Branch: []int{r.Intn(n)}, Args: step("late")})
	add("parallel", wireArgs{Branch: []int{r.Intn(n)}, Args: json.RawMessage(`{"end":{"output":"late"}}`)})
	add("execute", wireArgs{Args: step("after")})
	// a human step, named as a kernel event type on every other wire round, and resumes naming
	// another type, a kernel type, then its gate
	human := "review"
	if (round/3)%2 == 0 {
		human = []string{manifest.StepCompleted, manifest.ExecutionCompleted, manifest.StepStarted}[r.Intn(3)]
	}
	add("human", wireArgs{Args: explore.Args(map[string]any{"task": map[string]any{"id": human, "kind": "human"}, "input": 1})})
	add("resume", wireArgs{EventType: "approve"})
	add("resume", wireArgs{EventType: manifest.StepCompleted})
	add("resume", wireArgs{EventType: "$gate"})
	for i := range 2 + r.Intn(2) {
		add("execute", wireArgs{Args: json.RawMessage(fmt.Sprintf(`{"task":{"id":"m%d","toolId":"meter"},"input":{"tokens":2,"costUsd":0.5,"value":%d}}`, i, i))})
	}
	add("complete", wireArgs{})
	return s
}

// wireSide is one kernel a wire script runs on.
type wireSide struct {
	c *carrier.Client
	d *carrier.Driver
}

// call makes step st on the side and returns its outcome: "answered", "parked", "error CODE
// (kind K)", or "no answer: …".
func (w *wireSide) call(ctx context.Context, st explore.Step, a wireArgs) string {
	op := strings.TrimPrefix(st.Op, xWire)
	switch op {
	case "resume":
		ev := a.EventType
		if ev == "$gate" {
			var s carrier.StateResult
			if err := w.c.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": w.d.ExecutionID}, &s); err != nil {
				return outcome(false, err)
			}
			if ev = s.SuspendedOn; ev == "" {
				ev = "approve"
			}
		}
		var at carrier.Attached
		err := w.c.Call(ctx, carrier.MethodResume, map[string]any{"executionId": w.d.ExecutionID, "eventType": ev, "payload": map[string]any{"ok": true}, "attach": true}, &at)
		if err == nil && at.Driver != "" {
			w.d.Token = at.Driver
		}
		return outcome(false, err)
	case "complete":
		var at carrier.Attached
		return outcome(false, w.c.Call(ctx, carrier.MethodComplete, map[string]any{"executionId": w.d.ExecutionID, "driver": w.d.Token, "output": "done"}, &at))
	case "human":
		op = "execute"
	}
	_, parked, err := w.d.SyscallAt(ctx, a.Branch, op, a.Args)
	return outcome(parked, err)
}

// outcome is a call's answer as the wire script compares it.
func outcome(parked bool, err error) string {
	if err == nil {
		if parked {
			return "parked"
		}
		return "answered"
	}
	ce, ok := asCall(err)
	if !ok {
		return "no answer: " + err.Error()
	}
	var data struct {
		Kind   string `json:"kind"`
		Branch *int   `json:"branch"`
	}
	_ = json.Unmarshal(ce.RPC.Data, &data)
	out := fmt.Sprintf("error %d", ce.RPC.Code)
	if data.Kind != "" {
		out += " (kind " + data.Kind + ")"
	}
	if data.Branch != nil {
		out += fmt.Sprintf(" (data.branch %d)", *data.Branch)
	}
	return out
}

// refServer is the reference kernel served in process over loopback, the other side of every
// wire script: the conformance profile of `loom-conform serve-kernel --wave2`.
type refServer struct {
	srv *http.Server
	c   *carrier.Client
}

func startRefServer(timeout time.Duration) (*refServer, error) {
	k, _, err := carrier.NewProfile(memory.NewEventStore(), true, carrier.Options{Features: carrier.Wave2()})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: k, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &refServer{srv: srv, c: carrier.NewClient("http://"+ln.Addr().String(), timeout)}, nil
}

func (r *refServer) close() {
	r.c.Close()
	_ = r.srv.Close()
}

// replayWire runs a wire script on the kernel and on the reference and returns the first
// difference (nil: none, or no case: a script whose first step is not the parallel it needs).
func (x *explorer) replayWire(ctx context.Context, s explore.Script) (*explore.Mismatch, error) {
	if x.ref == nil {
		r, err := startRefServer(30 * time.Second)
		if err != nil {
			return nil, x.c.Unknown("the reference kernel served in process: %v", err)
		}
		x.ref = r
	}
	id := x.c.ExecID("explore-wire")
	at := fmt.Sprintf("seed %d round %d, execution %s", s.Seed, s.Round, id)
	start := map[string]any{"flowId": "explore.wire", "executionId": id, "input": s.Round}
	steps := s.Steps
	if len(steps) > 0 && steps[0].Op == xWire+"budget" {
		var a wireArgs
		_ = json.Unmarshal(steps[0].Args, &a)
		start["budget"], steps = a.Args, steps[1:]
	}
	sides := [2]*wireSide{{c: x.c.Store}, {c: x.ref.c}}
	for i, w := range sides {
		var a carrier.Attached
		if err := w.c.Call(ctx, carrier.MethodStart, start, &a); err != nil {
			if i == 1 {
				return nil, x.c.Unknown("the reference kernel served in process: %s: %v", carrier.MethodStart, err)
			}
			return &explore.Mismatch{Op: carrier.MethodStart, Args: at, Got: outcome(false, err), Want: "a started execution", Clauses: withRule([]string{"I-WIRE-2"})}, nil
		}
		w.d = &carrier.Driver{C: w.c, ExecutionID: id, Token: a.Driver}
	}
	x.judged++
	chosen := false // the kernel parked a human step the reference refused (I-KERNEL-22)
	for i, st := range steps {
		i += len(s.Steps) - len(steps)
		var a wireArgs
		if err := json.Unmarshal(st.Args, &a); err != nil || !strings.HasPrefix(st.Op, xWire) {
			return nil, nil
		}
		op := strings.TrimPrefix(st.Op, xWire)
		args := string(st.Args)
		if chosen {
			if op != "resume" {
				continue
			}
			gate := x.shownGate(ctx, a.EventType, sides[0])
			a.EventType = gate
			got := sides[0].call(ctx, st, a)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if isKernelType(gate) && !strings.HasPrefix(got, "error") {
				return &explore.Mismatch{Step: i, Op: carrier.MethodResume, Args: at + ", " + args + " (resolved to " + gate + ")", Got: got,
					Want: "refused: a resume naming a kernel event type is never taken, whichever gate the human step parked on", Clauses: withRule([]string{"S5.ingress.kernel-namespace"})}, nil
			}
			continue
		}
		got, want := sides[0].call(ctx, st, a), sides[1].call(ctx, st, a)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if x.shrinking && strings.HasPrefix(got, "no answer") {
			return nil, errNoAnswer
		}
		if got == want {
			continue
		}
		var ha struct {
			Task struct{ ID string } `json:"task"`
		}
		_ = json.Unmarshal(a.Args, &ha)
		if op == "human" && got == "parked" && strings.HasPrefix(want, "error") && isKernelType(ha.Task.ID) {
			chosen = true // another legal option: park on the kernel-type id's gate
			continue
		}
		return &explore.Mismatch{Step: i, Op: wireMethod(op), Args: at + ", " + args, Got: got,
			Want: want + " (the reference kernel's answer)", Clauses: withRule(exploreWireClauses[op])}, nil
	}
	if chosen {
		return nil, nil
	}
	var logs [2][]string
	for i, w := range sides {
		r, err := carrier.State(ctx, w.c, id)
		if err != nil {
			if i == 1 {
				return nil, x.c.Unknown("the reference kernel served in process: getState: %v", err)
			}
			return &explore.Mismatch{Step: len(s.Steps) - 1, Op: carrier.MethodGetState, Args: at, Got: outcome(false, err), Want: "the execution's log", Clauses: withRule([]string{"I-WIRE-10"})}, nil
		}
		for _, e := range r.Log {
			if !wireCompared(e.EventType) {
				continue
			}
			var p struct {
				StepID string `json:"stepId"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			logs[i] = append(logs[i], strings.TrimSuffix(e.EventType+" "+p.StepID, " "))
		}
	}
	if !slices.Equal(logs[0], logs[1]) {
		return &explore.Mismatch{Step: len(s.Steps) - 1, Op: "log", Args: at + " (event types and step ids)", Got: strings.Join(logs[0], ", "),
			Want: strings.Join(logs[1], ", ") + " (the reference kernel's log)", Clauses: withRule([]string{"I-WIRE-52", "A26.wire.kernel-authoritative", "S3.emit.serve-append", "S41.typed.untyped-at-least-once"})}, nil
	}
	return nil, nil
}

// wireCompared reports whether a wire script's logs are compared on envelopes of eventType: a
// step's end, a decision, an emit. Where a gate's event is named, where the resume's record falls
// and what a refused quota leaves are choices (I-KERNEL-22, I-KERNEL-50, I-KERNEL-9).
func wireCompared(eventType string) bool {
	switch eventType {
	case manifest.StepCompleted, manifest.StepFailed, manifest.DecisionRecorded:
		return true
	}
	return strings.HasPrefix(eventType, "x.")
}

// shownGate is the event type a resume step names on side w: its own, or for "$gate" the gate
// the side's getState shows.
func (x *explorer) shownGate(ctx context.Context, eventType string, w *wireSide) string {
	if eventType != "$gate" {
		return eventType
	}
	var s carrier.StateResult
	_ = w.c.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": w.d.ExecutionID}, &s)
	return s.SuspendedOn
}

// isKernelType reports whether t is an event type of the kernel's namespace.
func isKernelType(t string) bool { return manifest.IsKernelEventType(t) }

// wireMethod names the wire method a step's op calls.
func wireMethod(op string) string {
	switch op {
	case "resume":
		return carrier.MethodResume
	case "complete":
		return carrier.MethodComplete
	case "human":
		return "syscall.execute"
	}
	return "syscall." + op
}
