package kits

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

// Reference: I-STORE-14 — a history with one stale read among many operations gets a witness that
// no order explains, keeps every write before the stale read, drops the reads that do not matter
// and the writes that began after everything else had ended, and comes with porcupine's drawing.
func TestNotLinearizableWitness(t *testing.T) {
	var h []porcupine.Operation
	at := int64(0)
	op := func(cl int, in linInput, out linOutput) {
		h = append(h, porcupine.Operation{ClientId: cl, Input: in, Output: out, Call: at, Return: at + 100_000})
		at += 200_000
	}
	log := []string{}
	for i := 0; i < 6; i++ { // appends 0..5, each followed by a read that sees it
		tag := fmt.Sprintf("t%d", i)
		op(0, linInput{seq: i, n: 1, tag: tag}, linOutput{ok: true})
		log = append(log, tag)
		op(1, linInput{read: true}, linOutput{log: strings.Join(log, ",")})
	}
	op(2, linInput{read: true}, linOutput{log: strings.Join(log[:4], ",")}) // stale: misses t4 and t5
	for i := 6; i < 10; i++ {                                               // later writes
		op(0, linInput{seq: i, n: 1, tag: fmt.Sprintf("t%d", i)}, linOutput{ok: true})
	}
	if porcupine.CheckOperations(linModel(), h) {
		t.Fatal("the history with a stale read is linearizable")
	}
	v := &Violation{Check: "eventstore/linearizable", Clauses: []string{"I-STORE-14"}, Op: "CheckOperations", Got: "not linearizable", Want: "a linearizable history"}
	err := notLinearizable(v, linModel(), h, func(op porcupine.Operation) bool { return op.Input.(linInput).read || !op.Output.(linOutput).ok })
	var we *WitnessError
	if !errors.As(err, &we) || !errors.Is(err, error(v)) {
		t.Fatalf("notLinearizable = %v, want a WitnessError wrapping the violation", err)
	}
	text := we.Witness.Text
	lines := strings.Count(text, "\n  #")
	if lines != 7 || !strings.Contains(text, "read() -> [t0,t1,t2,t3]") || strings.Contains(text, "t6") || !strings.Contains(text, "7 of the 17 operations") {
		t.Errorf("witness = %s\nwant the six appends and the stale read (7 of 17 operations), no later write", text)
	}
	if !strings.Contains(err.Error(), "eventstore/linearizable [I-STORE-14]") || !strings.Contains(err.Error(), "witness:") {
		t.Errorf("Error() = %s, want the violation then the witness", err)
	}
	if !strings.HasPrefix(strings.TrimSpace(we.Witness.Drawing), "<!doctype html>") {
		t.Errorf("Drawing = %.60q, want porcupine's HTML", we.Witness.Drawing)
	}
	if witnessOf(err) == nil || witnessOf(v) != nil {
		t.Error("witnessOf does not find the witness, or finds one on a bare violation")
	}
}
