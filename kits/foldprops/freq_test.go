package foldprops

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// shapeCounts counts, over generated logs, the logs holding each interesting shape at least once.
type shapeCounts map[string]int

// The shapes the properties need in order not to be vacuous.
const (
	shapeParkedFailure     = "STEP_FAILED while suspended"
	shapeNullAfterFailure  = "null EXECUTION_RESUMED while _failedWhileParked"
	shapeSuspendAfterFail  = "EXECUTION_SUSPENDED while _failedWhileParked"
	shapeLateFailure       = "STEP_FAILED after EXECUTION_COMPLETED/_CANCELLED"
	shapeReleaseNeither    = "INBOX_RELEASED with neither operator nor auto"
	shapeReleaseBoth       = "INBOX_RELEASED with both operator and auto"
	shapeQuarantineBounded = "INBOX_QUARANTINED ignored at the 1 024 bound"
	shapeAttemptBeyond     = "STEP_* attempt beyond the double range"
	shapeMeasureExtreme    = "RESOURCE_METERED with -0, 1e-400, 2^53+1 or 1e400"
	shapeCarryProto        = "EXECUTION_STARTED carry holding __proto__"
	shapeEscapedProto      = "__proto__ spelled with an escape"
	shapeRepeatedMember    = "payload or metadata with a repeated member"
	shapeSurrogateKey      = "lone surrogate as a member name"
	shapeSumSaturates      = "_resources sum held at the largest double"
)

// countShapes folds log one envelope at a time (reference fold, current profile) and records
// which shapes occur, judged from the state before each envelope.
func countShapes(t *testing.T, log []spi.Envelope, c shapeCounts) {
	t.Helper()
	seen := map[string]bool{}
	st := fold.Empty()
	ended := false
	for i, e := range log {
		_, flag := st.Variables.Values[fold.VarFailedWhileParked]
		switch e.EventType {
		case "STEP_FAILED":
			if st.Status == fold.StatusSuspended {
				seen[shapeParkedFailure] = true
			}
			if ended {
				seen[shapeLateFailure] = true
			}
		case "EXECUTION_RESUMED":
			if flag && string(e.Payload) == "null" {
				seen[shapeNullAfterFailure] = true
			}
		case "EXECUTION_SUSPENDED":
			if flag {
				seen[shapeSuspendAfterFail] = true
			}
		case "INBOX_RELEASED":
			var p map[string]json.RawMessage
			var topic, id string
			if json.Unmarshal(e.Payload, &p) != nil || json.Unmarshal(p["topic"], &topic) != nil || json.Unmarshal(p["messageId"], &id) != nil {
				break
			}
			// only a release that would act if it were well-formed: kernel-stamped, of the held head
			q := st.Variables.Quarantined[topic]
			if strings.Contains(string(e.Metadata), `"kernel":true`) && len(q) > 0 && !q[0].Released && q[0].MessageID == id {
				switch op, auto := p["operator"] != nil, p["auto"] != nil; {
				case !op && !auto:
					seen[shapeReleaseNeither] = true
				case op && auto:
					seen[shapeReleaseBoth] = true
				}
			}
		case "INBOX_QUARANTINED":
			var p struct{ Topic string }
			if json.Unmarshal(e.Payload, &p) == nil && len(st.Variables.Quarantined[p.Topic]) == fold.MaxQuarantined {
				seen[shapeQuarantineBounded] = true
			}
		}
		recordHostile(e, seen)
		next, err := fold.Fold(fold.Current(), &st, log[i:i+1])
		if err != nil {
			t.Fatalf("Fold(envelope %d) = %v", i, err)
		}
		if tok, ok := next.Variables.Resources["tokens"]; ok && tok == math.MaxFloat64 {
			seen[shapeSumSaturates] = true
		}
		if next.Status != st.Status {
			ended = next.Status == fold.StatusCompleted || next.Status == fold.StatusCancelled
		}
		st = next
	}
	for s := range seen {
		c[s]++
	}
}

// recordHostile records the hostile shapes (GenOptions.Hostile) envelope e has.
func recordHostile(e spi.Envelope, seen map[string]bool) {
	text := string(e.Payload) + string(e.Metadata)
	d := json.NewDecoder(strings.NewReader(string(e.Payload)))
	d.UseNumber()
	var p map[string]any
	d.Decode(&p) //nolint:errcheck // a payload that is not an object has no members
	beyond := func(v any) bool {
		n, ok := v.(json.Number)
		_, err := strconv.ParseFloat(string(n), 64)
		return ok && err != nil
	}
	switch {
	case strings.HasPrefix(e.EventType, "STEP_") && beyond(p["attempt"]):
		seen[shapeAttemptBeyond] = true
	case e.EventType == "RESOURCE_METERED":
		for _, x := range []string{":-0", ":1e-400", ":9007199254740993", ":1e400"} {
			if strings.Contains(text, x) {
				seen[shapeMeasureExtreme] = true
			}
		}
	case e.EventType == "EXECUTION_STARTED" && strings.Contains(text, `"carry"`) && strings.Contains(text, "proto__"):
		seen[shapeCarryProto] = true
	}
	if strings.Contains(text, `\u005f_proto__`) {
		seen[shapeEscapedProto] = true
	}
	if strings.Contains(text, `"\ud800":`) || strings.Contains(text, `"\udfff":`) {
		seen[shapeSurrogateKey] = true
	}
	for _, raw := range []json.RawMessage{e.Payload, e.Metadata} {
		if n, err := parseNode(raw); err == nil {
			for _, o := range n.nodes(nil) {
				names := map[string]bool{}
				for _, k := range o.keys {
					if names[keyName(k)] {
						seen[shapeRepeatedMember] = true
					}
					names[keyName(k)] = true
				}
			}
		}
	}
}

// Reference: spec §4 — the generators produce the shapes the properties exist for, at a minimum
// frequency over a fixed seed set, so no property can silently become vacuous: a parallel
// sibling failing while parked, a null resume and a re-park after it, a late sibling failure after
// the execution ended (I-FOLD-20), releases with neither or both of operator/auto, a topic
// queue reaching the 1 024 bound, and with Hostile an attempt and measurements beyond or below the
// double range, a saturating sum (I-FOLD-21, I-FOLD-29), a carry holding __proto__ (I-FOLD-30),
// an escaped __proto__, lone surrogates as names and repeated members (I-FOLD-31).
func TestGeneratorFrequencies(t *testing.T) {
	const seeds = 400
	check := func(name string, o GenOptions, want map[string]float64) {
		c := shapeCounts{}
		for seed := range seeds {
			countShapes(t, Log(o).Example(seed), c)
		}
		var got []string
		for shape, min := range want {
			f := float64(c[shape]) / seeds
			got = append(got, fmt.Sprintf("%s %.1f%%", shape, 100*f))
			if f < min {
				t.Errorf("foldprops/generator-frequencies [S4.fold.failed-while-parked-set S4.v1_25.release-exactly-one]: %s: Log(%s) over %d seeds: %q in %.1f%% of logs, want at least %.1f%%",
					name, o.Profile, seeds, shape, 100*f, 100*min)
			}
		}
		t.Logf("%s: %s", name, strings.Join(got, "; "))
	}
	check("full", GenOptions{Unusual: true}, map[string]float64{
		shapeParkedFailure:     0.20,
		shapeNullAfterFailure:  0.06,
		shapeSuspendAfterFail:  0.06,
		shapeLateFailure:       0.15,
		shapeReleaseNeither:    0.025,
		shapeReleaseBoth:       0.02,
		shapeQuarantineBounded: 0.05,
	})
	check("hostile", GenOptions{Unusual: true, Hostile: true}, map[string]float64{
		shapeAttemptBeyond:  0.025,
		shapeMeasureExtreme: 0.07,
		shapeCarryProto:     0.04,
		shapeEscapedProto:   0.13,
		shapeRepeatedMember: 0.40,
		shapeSurrogateKey:   0.08,
		shapeSumSaturates:   0.02,
		shapeParkedFailure:  0.15,
	})
	check("core", GenOptions{CoreOnly: true}, map[string]float64{
		shapeParkedFailure:    0.20,
		shapeNullAfterFailure: 0.08,
		shapeSuspendAfterFail: 0.08,
		shapeLateFailure:      0.30,
	})
}
