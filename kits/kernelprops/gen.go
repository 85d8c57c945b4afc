package kernelprops

import (
	"context"
	"fmt"

	"pgregory.net/rapid"
)

type ctxT = context.Context

// genProgram draws a flow of up to maxOps statements: steps, failing steps, decisions, emits (some
// repeating the previous emit's content in the same segment), parks, and parallels of leaf
// statements (emits there get fresh content).
func genProgram(maxOps int, parallel bool) *rapid.Generator[Program] {
	return rapid.Custom(func(t *rapid.T) Program {
		n := rapid.IntRange(1, maxOps).Draw(t, "ops")
		var p Program
		content, lastContent, ids := 0, -1, 0
		next := func(prefix string) string { ids++; return fmt.Sprintf("%s%d", prefix, ids) }
		kinds := []string{OpStep, OpStep, OpStep, OpEmit, OpEmit, OpEmit, OpDecide, OpSuspend, OpFail}
		if parallel {
			kinds = append(kinds, OpParallel)
		}
		for range n {
			switch k := rapid.SampledFrom(kinds).Draw(t, "kind"); k {
			case OpEmit:
				if lastContent >= 0 && rapid.IntRange(0, 9).Draw(t, "dup") < 3 {
					p = append(p, Op{Kind: OpEmit, Content: lastContent})
					continue
				}
				content++
				lastContent = content
				p = append(p, Op{Kind: OpEmit, Content: content})
			case OpSuspend:
				lastContent = -1 // a new segment: a duplicate would be other content anyway
				p = append(p, Op{Kind: OpSuspend, ID: next("g")})
			case OpParallel:
				nb := rapid.IntRange(2, 3).Draw(t, "branches")
				op := Op{Kind: OpParallel}
				for range nb {
					var b []Op
					for range rapid.IntRange(1, 3).Draw(t, "leaves") {
						switch lk := rapid.SampledFrom([]string{OpStep, OpStep, OpEmit, OpDecide}).Draw(t, "leaf"); lk {
						case OpEmit:
							content++
							b = append(b, Op{Kind: OpEmit, Content: content})
						default:
							b = append(b, Op{Kind: lk, ID: next(map[string]string{OpStep: "p", OpDecide: "pd"}[lk])})
						}
					}
					op.Branches = append(op.Branches, b)
				}
				p = append(p, op)
			default:
				p = append(p, Op{Kind: k, ID: next(map[string]string{OpStep: "s", OpDecide: "d", OpFail: "f"}[k])})
			}
		}
		return p
	})
}

// Schedule is how one execution of a program is driven: where the process crashes, the effect
// latencies, and whether a code change (a new live step) is deployed at the first resume.
type Schedule struct {
	// Crashes: before run i, crash at the Crashes[i]-th append of that run (0 = no crash).
	Crashes []int
	// LatencySeed drives the effects' random latencies.
	LatencySeed int64
	// ChangeAt >= 0 deploys Program.Insert(ChangeAt) at the first resume; -1 = no code change.
	ChangeAt int
}

func genSchedule(p Program, codeChange bool) *rapid.Generator[Schedule] {
	return rapid.Custom(func(t *rapid.T) Schedule {
		s := Schedule{LatencySeed: rapid.Int64().Draw(t, "latencySeed"), ChangeAt: -1}
		s.Crashes = rapid.SliceOfN(rapid.IntRange(0, 8), 0, 6).Draw(t, "crashes")
		if codeChange && rapid.Bool().Draw(t, "codeChange") {
			s.ChangeAt = rapid.IntRange(0, len(p)).Draw(t, "changeAt")
			// Half the time insert the new step right before a repeated emit: the code change of
			// the worked example 6, where only the live-work test keeps the emit from being served.
			if dups := repeatedEmits(p); len(dups) > 0 && rapid.Bool().Draw(t, "beforeRepeat") {
				s.ChangeAt = rapid.SampledFrom(dups).Draw(t, "repeatAt")
			}
		}
		return s
	})
}

// repeatedEmits lists the indices of emits repeating an earlier emit's content in their segment.
func repeatedEmits(p Program) []int {
	var out []int
	seen := map[int]bool{}
	for i, op := range p {
		switch op.Kind {
		case OpSuspend:
			seen = map[int]bool{}
		case OpEmit:
			if seen[op.Content] {
				out = append(out, i)
			}
			seen[op.Content] = true
		}
	}
	return out
}
