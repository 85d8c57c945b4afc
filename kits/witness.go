package kits

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Witness is why a concurrent history is not linearizable, in a form a person can follow: the
// smallest part of the history that no order explains (Text, one operation a line, and the
// longest order that explains a prefix of it) and porcupine's drawing of it (Drawing, a
// self-contained HTML document the HTML report embeds).
type Witness struct {
	Text    string `json:"text"`
	Drawing string `json:"drawing,omitempty"`
}

// WitnessError is a linearizability violation with its witness. Its text is the violation's,
// followed by the witness, so every surface that prints failures prints the witness too.
type WitnessError struct {
	*Violation
	Witness Witness
}

func (e *WitnessError) Error() string { return e.Violation.Error() + "\n" + e.Witness.Text }

// Unwrap exposes the violation.
func (e *WitnessError) Unwrap() error { return e.Violation }

// witnessOf is the witness an error carries, if any.
func witnessOf(err error) *Witness {
	var we *WitnessError
	if errors.As(err, &we) {
		return &we.Witness
	}
	return nil
}

// witnessChecks bounds the linearizability checks a witness may cost: work, not time (DESIGN §7.1).
const witnessChecks = 300

// notLinearizable wraps v (the check's violation for history) with its witness. observer says
// which operations never change the model's state (reads, refused writes): removing those from a
// history no order explains leaves a history no order explains, so the witness drops as many as it
// can, and the operations that began after all the others had ended; the rest stays as it happened.
func notLinearizable(v error, model porcupine.Model, history []porcupine.Operation, observer func(porcupine.Operation) bool) error {
	var viol *Violation
	if !errors.As(v, &viol) {
		return v
	}
	w := history
	budget := witnessChecks
	illegal := func(h []porcupine.Operation) bool {
		if budget <= 0 {
			return false
		}
		budget--
		return porcupine.CheckOperationsTimeout(model, h, 2*time.Second) == porcupine.Illegal
	}
	for size := len(w) / 2; size >= 1; size /= 2 {
		for i := 0; i+size <= len(w); {
			removable := true
			for _, op := range w[i : i+size] {
				removable = removable && observer(op)
			}
			if removable {
				cand := append(append([]porcupine.Operation{}, w[:i]...), w[i+size:]...)
				if illegal(cand) {
					w = cand
					continue
				}
			}
			i++
		}
	}
	// An operation that started after every other one had returned is ordered after all of them in
	// any explanation, so the history without it is explained whenever the whole is: drop such a
	// tail while what is left stays unexplained.
	for len(w) > 1 {
		last, lastCall, others := -1, int64(0), int64(0)
		for i, op := range w {
			if last < 0 || op.Call > lastCall {
				last, lastCall = i, op.Call
			}
		}
		for i, op := range w {
			if i != last && op.Return > others {
				others = op.Return
			}
		}
		cand := append(append([]porcupine.Operation{}, w[:last]...), w[last+1:]...)
		if lastCall <= others || !illegal(cand) {
			break
		}
		w = cand
	}
	_, info := porcupine.CheckOperationsVerbose(model, w, 10*time.Second)
	var drawing bytes.Buffer
	if err := porcupine.Visualize(model, info, &drawing); err != nil {
		drawing.Reset()
	}
	return &WitnessError{Violation: viol, Witness: Witness{Text: witnessText(model, history, w, info), Drawing: drawing.String()}}
}

// witnessText lists the witness's operations by call time and the longest order porcupine found
// that explains a prefix of them.
func witnessText(model porcupine.Model, history, w []porcupine.Operation, info porcupine.LinearizationInfo) string {
	describe := model.DescribeOperation
	if describe == nil {
		describe = func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) }
	}
	ops := append([]porcupine.Operation{}, w...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	var t0 int64
	if len(ops) > 0 {
		t0 = ops[0].Call
	}
	var b strings.Builder
	fmt.Fprintf(&b, "witness: %d of the %d operations, which no order explains (left out: reads and refused writes, which change nothing, and operations that began after all of these ended):\n", len(ops), len(history))
	key := func(op porcupine.Operation) string { return fmt.Sprintf("%d/%d/%d", op.ClientId, op.Call, op.Return) }
	index := map[string]int{}
	for i, op := range ops {
		index[key(op)] = i + 1
		fmt.Fprintf(&b, "  #%-2d client %d  %9.3f ms … %9.3f ms  %s\n", i+1, op.ClientId,
			float64(op.Call-t0)/1e6, float64(op.Return-t0)/1e6, describe(op.Input, op.Output))
	}
	var longest []porcupine.Operation
	for _, part := range info.PartialLinearizationsOperations() {
		for _, lin := range part {
			if len(lin) > len(longest) {
				longest = lin
			}
		}
	}
	var order []string
	for _, op := range longest {
		order = append(order, fmt.Sprintf("#%d", index[key(op)]))
	}
	if len(order) == 0 {
		b.WriteString("  no operation can come first")
	} else {
		fmt.Fprintf(&b, "  the longest order that explains a prefix: %s; no remaining operation can come next", strings.Join(order, " → "))
	}
	return b.String()
}
