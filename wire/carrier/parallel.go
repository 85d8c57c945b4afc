package carrier

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Parallel over the wire (docs/wire.md, "Parallel", I-WIRE-11). A driver opens the branches of a
// parallel with syscall.parallel {"branches": n}; it then makes each branch's syscalls with
// params.branch, the path of branch indexes from the flow's top ([1], [1, 0] for a nested one),
// ends each branch with syscall.parallel {"end": {"output": v}} or {"end": {"error": {"message":
// m}}} at the branch's path, and asks for the parallel's answer with syscall.parallel
// {"join": true} at the parent's path. The kernel runs the branches as kernel.Context.Parallel
// branches, each fed by its own route, so it records them as it does in process.

// parallelArgs are the members of syscall.parallel's args.
type parallelArgs struct {
	Branches int  `json:"branches"`
	Join     bool `json:"join"`
	End      *struct {
		Output json.RawMessage `json:"output"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"end"`
}

// MaxBranches bounds the branches one syscall.parallel may open.
const MaxBranches = 1024

// pathKey is a branch path as a route key ("" = the flow's top, "1/0").
func pathKey(p []int) string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, "/")
}

func childKey(parent string, i int) string {
	if parent == "" {
		return strconv.Itoa(i)
	}
	return parent + "/" + strconv.Itoa(i)
}

// route returns the channel feeding the scope at path, or the refusal of a call there: a path
// where no branch is open, or a scope whose own parallel has branches open (they end first, then
// the scope's next call is the join) — each -32025 kind branch, answered at once, so no call waits
// on a scope that is not reading (a call at the flow's top while its branches run, a join before
// every branch ended, an end of a branch whose nested parallel is open).
func (s *session) route(path []int) (chan *call, *bridge.RPCError) {
	key := pathKey(path)
	s.rmu.Lock()
	defer s.rmu.Unlock()
	ch := s.calls
	if len(path) > 0 {
		ch = s.routes[key]
	}
	if ch == nil && s.slip == SlipCallAfterJoin {
		ch = s.calls
	}
	if ch == nil {
		return nil, rpcErr(CodeNotRunnable, "branch", fmt.Sprintf("params.branch %v: no open branch at that path", path), "field", "branch")
	}
	if open := s.openUnder(key); len(open) > 0 {
		code := CodeNotRunnable
		if s.busyAsSyscall {
			code = CodeSyscallError
		}
		return nil, rpcErr(code, "branch", fmt.Sprintf("%s has open branches %s: end each (syscall.parallel {\"end\": …} at its path), then join (syscall.parallel {\"join\": true} here)",
			scopeName(path), strings.Join(open, " ")), "field", "branch", "open", open)
	}
	return ch, nil
}

// openUnder lists, in branch order, the branches open directly under the scope at key ("" = the
// flow's top) as paths ("[0]", "[1 0]"). s.rmu is held. A branch never ends while a parallel of its
// own is open, so a scope with an open descendant has an open child.
func (s *session) openUnder(key string) []string {
	var idx []int
	for k := range s.routes {
		rest, ok := strings.CutPrefix(k, key)
		if key != "" {
			rest, ok = strings.CutPrefix(rest, "/")
		}
		if !ok || rest == "" || strings.Contains(rest, "/") {
			continue
		}
		if i, err := strconv.Atoi(rest); err == nil {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	out := make([]string, len(idx))
	for j, i := range idx {
		out[j] = fmt.Sprint(append(keyPath(key), i))
	}
	return out
}

// keyPath is the branch path of a route key.
func keyPath(key string) []int {
	if key == "" {
		return []int{}
	}
	var p []int
	for _, x := range strings.Split(key, "/") {
		i, _ := strconv.Atoi(x)
		p = append(p, i)
	}
	return p
}

// scopeName names the scope at path in a message.
func scopeName(path []int) string {
	if len(path) == 0 {
		return "the flow's top"
	}
	return fmt.Sprintf("branch %v", path)
}

// parallelCheck refuses, from the request alone, a parallel call no scope could take: an end at
// the flow's top, an end's error without a message (-32602). It returns the finish an end carries.
func parallelCheck(name string, args json.RawMessage, branch []int) (*finish, *bridge.RPCError) {
	for _, x := range branch {
		if x < 0 {
			return nil, rpcErr(CodeInvalidParams, "params", "params.branch: a branch index is negative", "field", "branch")
		}
	}
	if name != "parallel" {
		return nil, nil
	}
	var a parallelArgs
	if json.Unmarshal(normArgs(args), &a) != nil || a.End == nil {
		return nil, nil
	}
	if len(branch) == 0 {
		return nil, rpcErr(CodeInvalidParams, "params", "syscall.parallel: an end needs params.branch, the branch it ends", "field", "branch")
	}
	f := &finish{output: payloadOr(a.End.Output)}
	if a.End.Error != nil {
		if a.End.Error.Message == "" {
			return nil, rpcErr(CodeInvalidParams, "params", "syscall.parallel: args.end.error.message must be a non-empty string", "field", "args.end.error.message")
		}
		f.err = a.End.Error.Message
	}
	return f, nil
}

// serve hands the calls arriving on ch to kc until the scope ends: the flow's top (a finish
// ends the flow) or a branch (an end ends the branch).
func (c *Carrier) serve(kc *kernel.Context, s *session, key string, ch chan *call) (any, error) {
	for {
		select {
		case cl := <-ch:
			if cl.finish != nil {
				if key != "" { // the branch has ended: no call may be routed to it from here on
					s.rmu.Lock()
					delete(s.routes, key)
					s.rmu.Unlock()
				}
				if cl.reply != nil {
					cl.reply <- reply{out: json.RawMessage("null")}
				}
				if cl.finish.err != "" {
					return nil, errors.New(cl.finish.err)
				}
				return cl.finish.output, nil
			}
			if cl.name == "parallel" {
				c.parallel(kc, s, key, ch, cl)
				continue
			}
			out, err := kc.Call(cl.name, cl.args)
			cl.reply <- reply{out, err}
		case <-kc.Context().Done():
			return nil, kc.Context().Err()
		}
	}
}

// parallel opens the branches of cl, runs them as kernel branches, then answers the join.
func (c *Carrier) parallel(kc *kernel.Context, s *session, key string, ch chan *call, cl *call) {
	var a parallelArgs
	if err := json.Unmarshal(normArgs(cl.args), &a); err != nil || a.Branches < 1 || a.Branches > MaxBranches || a.Join || a.End != nil {
		cl.reply <- reply{err: &kernel.SyscallError{Syscall: "parallel", Reason: fmt.Sprintf("args must be {\"branches\": n} with 1 <= n <= %d to open a parallel here", MaxBranches)}}
		return
	}
	chans := make([]chan *call, a.Branches)
	s.rmu.Lock()
	for i := range chans {
		chans[i] = make(chan *call)
		s.routes[childKey(key, i)] = chans[i]
	}
	s.rmu.Unlock()
	cl.reply <- reply{out: json.RawMessage(strconv.Itoa(a.Branches))}
	branches := make([]kernel.Branch, a.Branches)
	for i := range branches {
		k, bch := childKey(key, i), chans[i]
		branches[i] = func(bc *kernel.Context) (any, error) { return c.serve(bc, s, k, bch) }
	}
	outs, err := kc.Parallel(branches...) // a park or an abort unwinds from here
	s.rmu.Lock()
	for i := range chans {
		delete(s.routes, childKey(key, i))
	}
	s.rmu.Unlock()
	for {
		select {
		case j := <-ch:
			var ja parallelArgs
			if j.finish != nil || j.name != "parallel" || json.Unmarshal(normArgs(j.args), &ja) != nil || !ja.Join {
				if j.reply != nil {
					j.reply <- reply{err: &kernel.SyscallError{Syscall: j.name, Reason: "the branches have ended: the next call here is syscall.parallel {\"join\": true}"}}
				}
				continue
			}
			if err != nil {
				j.reply <- reply{err: err}
				return
			}
			b, _ := json.Marshal(outs)
			j.reply <- reply{out: b}
			return
		case <-kc.Context().Done():
			return
		}
	}
}

// branchRPC maps a failed parallel's error: the first failing branch, by index.
func branchRPC(err error) (*bridge.RPCError, bool) {
	var be *kernel.BranchError
	if !errors.As(err, &be) {
		return nil, false
	}
	return rpcErr(CodeStepFailed, "branch", err.Error(), "branch", be.Index), true
}
