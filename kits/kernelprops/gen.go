package kernelprops

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/goldens/flowscript"
	"pgregory.net/rapid"
)

// Motifs: generator-only kinds that expand to several statements of a shape worth meeting often.
const (
	motifRepeat = "motif-repeat"
	motifTwins  = "motif-twins"
)

// genProgram draws the body of a flow script of up to maxOps statements: steps (succeeding,
// failing untyped, failing typed, timing out, cancelled, emitting through EffectContext.emit, at
// most once so that a crash mid-step parks in doubt), decisions (some throwing), emits (some repeating content of the same segment, some content of an earlier segment, some
// unmatchable, some flow-level DECISION_RECORDED), parks, and parallels of leaf statements whose
// emits often reuse content of the segment, so branch copies meet each other and sequential
// copies in one segment (spec §3 residual, I-KERNEL-18/19). Every effect but a timeout is given a
// latency (the fakes' latencyUs, 0 to 300 µs, 0 a third of the time) that moves the interleaving
// of branches. The latencies are drawn after the statements, as one list, so that shrinking
// deletes statements as it would without them and drives each latency to 0 on its own.
func genProgram(maxOps int, parallel bool) *rapid.Generator[Program] {
	return rapid.Custom(func(t *rapid.T) Program {
		n := rapid.IntRange(1, maxOps).Draw(t, "ops")
		var p Program
		content, ids := 0, 0
		var segContents, allContents, branchContents []int
		next := func(prefix string) string { ids++; return fmt.Sprintf("%s%d", prefix, ids) }
		// emitContent draws the content of an emit: a repeat from this segment, one of an earlier
		// segment (the same payload, another digest), or a fresh one.
		emitContent := func(repeat int) int {
			// after a parallel of this segment, half the sequential emits repeat a branch's content:
			// the shape where a branch copy is served from a stamped copy after the join
			if repeat < 6 && len(branchContents) > 0 && rapid.Bool().Draw(t, "afterBranch") {
				return rapid.SampledFrom(branchContents).Draw(t, "branchContent")
			}
			switch r := rapid.IntRange(0, 9).Draw(t, "reuse"); {
			case len(segContents) > 0 && r < repeat:
				return rapid.SampledFrom(segContents).Draw(t, "segContent")
			case len(allContents) > 0 && r < repeat+2:
				c := rapid.SampledFrom(allContents).Draw(t, "oldContent")
				segContents = append(segContents, c)
				return c
			}
			content++
			segContents, allContents = append(segContents, content), append(allContents, content)
			return content
		}
		kinds := []string{kStep, kStep, kStep, kEmit, kEmit, kEmit, kEmit, kDecide, kSuspend, kSuspend, kSuspend,
			kFail, kTyped, kTimeout, kCancel, kDecideThrow, kEmitNaN, kEmitFact, kEffectEmit, kAtMostOnce, kAtMostOnce}
		if parallel {
			kinds = append(kinds, kParallel, kParallel, motifTwins, motifTwins)
		}
		kinds = append(kinds, motifRepeat)
		prefix := map[string]string{kStep: "s", kDecide: "d", kFail: "f", kTyped: "t", kTimeout: "o", kCancel: "x",
			kDecideThrow: "dt", kEffectEmit: "fx", kAtMostOnce: "m", kSuspend: "g"}
		leaf := func(k string, repeat int) flowscript.Stmt {
			switch k {
			case kEmit, kEmitFact:
				return stmt(k, "", emitContent(repeat))
			case kEmitNaN:
				return stmt(k, "", 0)
			case kEffectEmit:
				return stmt(k, next(prefix[k]), emitContent(0))
			}
			return stmt(k, next(prefix[k]), 0)
		}
		emit := func(c int) flowscript.Stmt { return stmt(kEmit, "", c) }
		for range n {
			switch k := rapid.SampledFrom(kinds).Draw(t, "kind"); k {
			case motifRepeat: // worked example 5's shape, then a park: emit c; step; emit c; suspend
				c := emitContent(0)
				p = append(p, emit(c), leaf(kStep, 0), emit(c), leaf(kSuspend, 0))
				segContents, branchContents = nil, nil
			case motifTwins: // two branches and the code after the join emit one content, then a park (I-KERNEL-18)
				c := emitContent(0)
				p = append(p, parallelOf([]flowscript.Stmt{emit(c)}, []flowscript.Stmt{leaf(kStep, 0), emit(c)}), emit(c), leaf(kSuspend, 0))
				segContents, branchContents = nil, nil
			case kSuspend:
				segContents, branchContents = nil, nil
				p = append(p, leaf(kSuspend, 0))
			case kParallel:
				nb := rapid.IntRange(2, 3).Draw(t, "branches")
				par := parallelOf()
				for range nb {
					var b []flowscript.Stmt
					for range rapid.IntRange(1, 3).Draw(t, "leaves") {
						lk := rapid.SampledFrom([]string{kStep, kStep, kEmit, kEmit, kEmit, kDecide, kFail, kTyped,
							kEmitFact, kEffectEmit}).Draw(t, "leaf")
						b = append(b, leaf(lk, 6))
					}
					par.Branches = append(par.Branches, b)
					for _, l := range b {
						if kindOf(l) == kEmit {
							branchContents = append(branchContents, contentOf(l))
						}
					}
				}
				p = append(p, par)
			default:
				p = append(p, leaf(k, 3))
			}
		}
		slots := p.latencySlots()
		lats := rapid.SliceOfN(rapid.IntRange(-150, 300), 0, len(slots)).Draw(t, "latenciesUs")
		for i, slot := range slots[:len(lats)] {
			*slot = withLatency(*slot, int64(max(0, lats[i])))
		}
		return p
	})
}

// latencySlots lists the program's steps that take a latency (all but timeouts), in order.
func (p Program) latencySlots() []*flowscript.Stmt {
	var out []*flowscript.Stmt
	for i := range p {
		if p[i].Op == "execute" && p[i].TimeoutMs == 0 {
			out = append(out, &p[i])
		}
		for _, b := range p[i].Branches {
			for j := range b {
				if b[j].Op == "execute" && b[j].TimeoutMs == 0 {
					out = append(out, &b[j])
				}
			}
		}
	}
	return out
}

// withLatency sets the step's latencyUs input member (0 = none).
func withLatency(st flowscript.Stmt, us int64) flowscript.Stmt {
	in := map[string]any{}
	_ = json.Unmarshal(st.Input, &in)
	delete(in, "latencyUs")
	if us > 0 {
		in["latencyUs"] = us
	}
	st.Input, _ = json.Marshal(in)
	return st
}

// Schedule is how one execution of a program is driven: where the process crashes, how in-doubt
// parks are answered, and whether a code change (a new live step) is deployed at the first resume.
type Schedule struct {
	// Crashes: before run i, crash at the Crashes[i]-th append of that run (0 = no crash).
	Crashes []int
	// Seed decides the in-doubt verdicts (applied or not, by parity).
	Seed int64
	// ChangeAt >= 0 deploys Program.Insert(ChangeAt) at the first resume; -1 = no code change.
	ChangeAt int
	// CrashInDoubt crashes the first run at the first completion of an at-most-once step, which
	// parks the execution in doubt on the next run.
	CrashInDoubt bool
}

func genSchedule(p Program, codeChange bool) *rapid.Generator[Schedule] {
	return rapid.Custom(func(t *rapid.T) Schedule {
		s := Schedule{Seed: rapid.Int64().Draw(t, "seed"), ChangeAt: -1}
		s.Crashes = rapid.SliceOfN(rapid.IntRange(0, 8), 0, 6).Draw(t, "crashes")
		if len(p.atMostOnceIDs()) > 0 {
			s.CrashInDoubt = rapid.Bool().Draw(t, "crashInDoubt")
		}
		if codeChange && rapid.Bool().Draw(t, "codeChange") {
			s.ChangeAt = rapid.IntRange(0, len(p)).Draw(t, "changeAt")
			// Half the time insert the new step right before a repeated emit: the code change of
			// the worked example 6, where only the live-work test keeps the emit from being served.
			// A repeat before the first park is what the re-run after that park meets again.
			if dups := repeatedEmits(p); len(dups) > 0 && rapid.Bool().Draw(t, "beforeRepeat") {
				if early := beforeFirstGate(p, dups); len(early) > 0 {
					dups = early
				}
				s.ChangeAt = rapid.SampledFrom(dups).Draw(t, "repeatAt")
			}
		}
		return s
	})
}

// beforeFirstGate keeps the indices that come before the program's first park.
func beforeFirstGate(p Program, idx []int) []int {
	first := len(p)
	for i, st := range p {
		if st.Op == "suspend" {
			first = i
			break
		}
	}
	var out []int
	for _, i := range idx {
		if i < first {
			out = append(out, i)
		}
	}
	return out
}

// repeatedEmits lists the indices of emits repeating an earlier emit's content in their segment.
func repeatedEmits(p Program) []int {
	var out []int
	seen := map[int]bool{}
	for i, st := range p {
		switch kindOf(st) {
		case kSuspend:
			seen = map[int]bool{}
		case kEmit:
			if seen[contentOf(st)] {
				out = append(out, i)
			}
			seen[contentOf(st)] = true
		case kParallel:
			for _, b := range st.Branches {
				for _, l := range b {
					if kindOf(l) == kEmit {
						seen[contentOf(l)] = true
					}
				}
			}
		}
	}
	return out
}
