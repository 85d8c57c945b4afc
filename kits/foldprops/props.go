package foldprops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
	"pgregory.net/rapid"
)

// Input is one generated case: a log within the schema of Writer, whose snapshots Writer writes
// and whose tail Reader folds (equal for the single-profile properties).
type Input struct {
	Writer fold.Profile
	Reader fold.Profile
	Log    []spi.Envelope
}

// GoString prints the case as rapid reports it: the profiles and the log as NDJSON.
func (in Input) GoString() string {
	return fmt.Sprintf("writer %s, reader %s, log (NDJSON):\n%s", in.Writer, in.Reader, NDJSON(in.Log))
}

// Property is one check of the kit: an id, the clauses it enforces, the generator of its cases
// and the check of one case (nil error = holds).
type Property struct {
	ID      string
	Clauses []string
	Gen     *rapid.Generator[Input]
	Check   func(tg Target, in Input) error
}

// Properties returns the kit, in order.
func Properties() []Property { return propertiesOf(0) }

// propertiesOf is the kit with logs of at most n generator actions (0: the default).
func propertiesOf(n int) []Property {
	return []Property{
		{"foldprops/snapshot-every-k", []string{"S4.snapshot.every-k", "S3.snapshot.equivalence", "I-FOLD-16", "I-FOLD-29"}, sameProfile(n), checkEveryK},
		{"foldprops/determinism", []string{"S1.P2.replay-identical", "S1.P2.fold-pure"}, sameProfile(n), checkDeterminism},
		{"foldprops/no-mutation", []string{"S3.fold.copy-on-write", "S4.fold.handler-pure", "S3.fold.structural-sharing"}, sameProfile(n), checkNoMutation},
		{"foldprops/unknown-inert", []string{"S4.fold.unknown-inert", "S4.v1_23.kernel-stamp-only", "S4.v1_25.quarantine-kernel-only"}, sameProfile(n), checkUnknownInert},
		{"foldprops/status-execution-only", []string{"S4.fold.status-execution-only", "S4.fold.step-frame-only", "S4.fold.step-failed-not-fatal", "I-FOLD-18"}, statusProfiles(n), checkStatusOnly},
		{"foldprops/cross-version", []string{"S4.snapshot.normalize-pre-1.21", "S4.snapshot.pre-1.21-exceptions", "S4.v1_24.legacy-no-seq", "S4.v1_26.normalize-strips-input", "I-FOLD-13", "I-FOLD-14", "I-FOLD-20"}, crossVersion(n), checkCrossVersion},
		{"foldprops/mixed-fleet", []string{"S4.v1_24.mixed-fleet-unstamped", "S4.v1_26.mixed-fleet-input"}, mixedFleet(n), checkCrossVersion},
		{"foldprops/differential-model", []string{"S4.fold.unknown-inert", "S4.fold.status-execution-only", "S4.v1_16.resume-payloads", "S4.v1_20.null-resume-no-passthrough",
			"S4.v1_24.decision-seq", "S4.v1_19.flow-emits-any-type", "S4.v1_26.input-dropped-at-settle", "S4.fold.failed-while-parked-set", "S4.fold.proto-rejected"}, core(n), checkDifferential},
	}
}

// Run runs every property against tg as subtests named by check id. The case count is rapid's
// (-rapid.checks, RAPID_CHECKS; default 100). A failing case prints rapid's seed and the shrunk
// log as NDJSON.
func Run(t *testing.T, tg Target) {
	t.Helper()
	for _, p := range Properties() {
		t.Run(strings.TrimPrefix(p.ID, "foldprops/"), rapid.MakeCheck(func(rt *rapid.T) {
			in := p.Gen.Draw(rt, "input")
			if err := p.Check(tg, in); err != nil {
				rt.Fatalf("%s %v: %v", p.ID, p.Clauses, err)
			}
		}))
	}
}

// NDJSON renders envelopes one per line (the input `loom-conform fold` reads).
func NDJSON(es []spi.Envelope) string {
	var b strings.Builder
	for _, e := range es {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func profileGen(ps []fold.Profile) *rapid.Generator[fold.Profile] {
	return rapid.SampledFrom(ps)
}

func sameProfile(n int) *rapid.Generator[Input] {
	return rapid.Custom(func(t *rapid.T) Input {
		p := profileGen(fold.Profiles()).Draw(t, "profile")
		return Input{Writer: p, Reader: p, Log: Log(GenOptions{Profile: p, MaxActions: n, Unusual: true, Hostile: true}).Draw(t, "log")}
	})
}

func statusProfiles(n int) *rapid.Generator[Input] {
	return rapid.Custom(func(t *rapid.T) Input {
		p := profileGen(fold.Profiles()[1:]).Draw(t, "profile") // 1.21.0 on: STEP_FAILED moves no status
		return Input{Writer: p, Reader: p, Log: Log(GenOptions{Profile: p, MaxActions: n, Unusual: true, Hostile: true}).Draw(t, "log")}
	})
}

func crossVersion(n int) *rapid.Generator[Input] {
	return rapid.Custom(func(t *rapid.T) Input {
		ps := fold.Profiles()
		w := profileGen(ps[:len(ps)-1]).Draw(t, "writer")
		return Input{Writer: w, Reader: fold.Current(), Log: Log(GenOptions{Profile: w, MaxActions: n, Unusual: true}).Draw(t, "log")}
	})
}

func mixedFleet(n int) *rapid.Generator[Input] {
	return rapid.Custom(func(t *rapid.T) Input {
		r := profileGen([]fold.Profile{fold.MustProfile("1.23.0"), fold.MustProfile("1.24.0"), fold.MustProfile("1.25.0")}).Draw(t, "reader")
		return Input{Writer: fold.Current(), Reader: r, Log: Log(GenOptions{Profile: r, MaxActions: n}).Draw(t, "log")}
	})
}

func core(n int) *rapid.Generator[Input] {
	return rapid.Custom(func(t *rapid.T) Input {
		return Input{Writer: fold.Current(), Reader: fold.Current(), Log: Log(GenOptions{MaxActions: n, CoreOnly: true}).Draw(t, "log")}
	})
}

func canonical(s fold.State) string {
	b, err := s.MarshalJSON()
	if err != nil {
		return "<no canonical JSON: " + err.Error() + ">"
	}
	return string(b)
}

// foldAll folds the whole log from nothing.
func foldAll(tg Target, p fold.Profile, log []spi.Envelope) (fold.State, error) {
	return tg.Fold(p, nil, log)
}

// checkEveryK: for every k, the snapshot at k (as is, through canonical JSON, and through a
// key-reordering jsonb round trip) plus the tail folds to the whole log's state.
func checkEveryK(tg Target, in Input) error {
	full, err := foldAll(tg, in.Writer, in.Log)
	if err != nil {
		return fmt.Errorf("Fold(all) = %v", err)
	}
	want := canonical(full)
	for k := 0; k < len(in.Log); k++ {
		snap, err := tg.Fold(in.Writer, nil, in.Log[:k+1])
		if err != nil {
			return fmt.Errorf("Fold(prefix %d) = %v", k, err)
		}
		b, err := snap.MarshalJSON()
		if err != nil {
			return fmt.Errorf("snapshot %d has no canonical JSON: %v", k, err)
		}
		jb, err := JSONBReorder(b)
		if err != nil {
			return err
		}
		for _, via := range []struct {
			name string
			raw  []byte
		}{{"as is", nil}, {"canonical JSON", b}, {"jsonb reorder", jb}} {
			s := snap
			if via.raw != nil {
				if s, err = fold.ParseState(via.raw); err != nil {
					return fmt.Errorf("ParseState(snapshot %d %s) = %v", k, via.name, err)
				}
			}
			got, err := tg.Fold(in.Writer, &s, in.Log[k+1:])
			if err != nil {
				return fmt.Errorf("Fold(snapshot@%d %s, tail) = %v", k, via.name, err)
			}
			if g := canonical(got); g != want {
				return fmt.Errorf("Fold(snapshot@%d %s, tail) != Fold(all) (-want +got):\n%s", k, via.name, cmp.Diff(want, g))
			}
		}
	}
	return nil
}

// checkDeterminism: the same bytes folded twice, through two decodes, print the same state.
func checkDeterminism(tg Target, in Input) error {
	raw := []byte(NDJSON(in.Log))
	var outs []string
	for range 2 {
		es, err := fold.DecodeLogBytes(raw)
		if err != nil {
			return fmt.Errorf("DecodeLog = %v", err)
		}
		s, err := foldAll(tg, in.Writer, es)
		if err != nil {
			return fmt.Errorf("Fold = %v", err)
		}
		outs = append(outs, canonical(s))
	}
	s, err := foldAll(tg, in.Writer, in.Log)
	if err != nil {
		return fmt.Errorf("Fold = %v", err)
	}
	outs = append(outs, canonical(s))
	if outs[0] != outs[1] || outs[0] != outs[2] {
		return fmt.Errorf("Fold is not deterministic:\n%s\n%s\n%s", outs[0], outs[1], outs[2])
	}
	if tg.Name == Reference().Name { // the reference's one-pass paths fold the same bytes alike
		for name, f := range map[string]func() (fold.State, error){
			"FoldBytes": func() (fold.State, error) { return fold.FoldBytes(in.Writer, nil, raw) },
			"FoldReader": func() (fold.State, error) {
				return fold.FoldReader(in.Writer, nil, bytes.NewReader(raw), fold.DecodeOptions{})
			},
		} {
			st, err := f()
			if err != nil || canonical(st) != outs[0] {
				return fmt.Errorf("%s = %v, want Fold's state (-want +got):\n%s", name, err, cmp.Diff(outs[0], canonical(st)))
			}
		}
	}
	return nil
}

func cloneEnvelopes(es []spi.Envelope) []spi.Envelope {
	out := make([]spi.Envelope, len(es))
	for i, e := range es {
		e.Payload = bytes.Clone(e.Payload)
		e.Metadata = bytes.Clone(e.Metadata)
		out[i] = e
	}
	return out
}

// checkNoMutation: folding never writes to the caller's snapshot or events, and a result is not
// changed by a later fold from the same snapshot (structural sharing stays within one pass).
func checkNoMutation(tg Target, in Input) error {
	before := cloneEnvelopes(in.Log)
	for k := 0; k < len(in.Log); k++ {
		snap, err := tg.Fold(in.Writer, nil, in.Log[:k+1])
		if err != nil {
			return fmt.Errorf("Fold(prefix %d) = %v", k, err)
		}
		snapBytes := canonical(snap)
		r1, err := tg.Fold(in.Writer, &snap, in.Log[k+1:])
		if err != nil {
			return fmt.Errorf("Fold(snapshot@%d, tail) = %v", k, err)
		}
		r1Bytes := canonical(r1)
		if got := canonical(snap); got != snapBytes {
			return fmt.Errorf("Fold wrote to the caller's snapshot@%d (-before +after):\n%s", k, cmp.Diff(snapBytes, got))
		}
		// A second pass from the same snapshot with a different tail must not reach into r1.
		other := cloneEnvelopes(in.Log[k+1:])
		for i := range other {
			other[i].EventType = "EXECUTION_RESUMED"
			other[i].Payload = json.RawMessage(`{"other":true}`)
			other[i].Metadata = json.RawMessage(`{"flowEmit":"0000000000000000"}`)
		}
		if _, err := tg.Fold(in.Writer, &snap, other); err != nil {
			return fmt.Errorf("Fold(snapshot@%d, other tail) = %v", k, err)
		}
		if got := canonical(r1); got != r1Bytes {
			return fmt.Errorf("a later fold from snapshot@%d changed an earlier result (-before +after):\n%s", k, cmp.Diff(r1Bytes, got))
		}
		if got := canonical(snap); got != snapBytes {
			return fmt.Errorf("Fold wrote to the caller's snapshot@%d (-before +after):\n%s", k, cmp.Diff(snapBytes, got))
		}
	}
	if b, a := NDJSON(before), NDJSON(in.Log); b != a {
		d := cmp.Diff(b, a)
		return fmt.Errorf("Fold wrote to the caller's events (-before +after):\n%s", d)
	}
	return nil
}

// inertTypes are types the fold must ignore at profile p, and the metadata they come with.
func inertTypes(p fold.Profile) []string {
	ts := []string{"UNKNOWN_KIND", "step_started", "EXECUTION_STARTED "}
	if !p.AtLeast(22) {
		ts = append(ts, "EVENTS_REHOMED")
	}
	if !p.AtLeast(23) {
		ts = append(ts, "MESSAGE_CONSUMED", "EXECUTION_CONTINUED", "PARALLEL_COMPLETED")
	}
	if !p.AtLeast(25) {
		ts = append(ts, "INBOX_QUARANTINED", "INBOX_RELEASED")
	}
	return ts
}

// checkUnknownInert: after every prefix, an envelope of an unknown type (or a type the profile
// does not know, or an unstamped Wave 2 / quarantine kind) changes nothing but sequence/updatedAt.
func checkUnknownInert(tg Target, in Input) error {
	type probe struct {
		typ, meta string
	}
	var probes []probe
	for _, t := range inertTypes(in.Writer) {
		probes = append(probes, probe{t, `{"kernel":true}`}, probe{t, ""})
	}
	for _, t := range []string{"MESSAGE_CONSUMED", "EXECUTION_CONTINUED", "PARALLEL_COMPLETED", "INBOX_QUARANTINED", "INBOX_RELEASED"} {
		probes = append(probes, probe{t, `{"seal":{"v":1}}`}) // unstamped: a no-op at every profile
	}
	payload := json.RawMessage(`{"topic":"orders","messageId":"q1","scopeId":"p","continuedTo":"x","operator":"a","deliver":true,"stepId":"s1","status":"failed"}`)
	s, err := tg.Fold(in.Writer, nil, nil)
	if err != nil {
		return fmt.Errorf("Fold(empty) = %v", err)
	}
	for k := -1; k < len(in.Log); k++ {
		if k >= 0 { // the prefix state, one envelope at a time
			if s, err = tg.Fold(in.Writer, &s, in.Log[k:k+1]); err != nil {
				return fmt.Errorf("Fold(prefix %d) = %v", k, err)
			}
		}
		want := s
		want.Sequence, want.UpdatedAt = int64(k+1), fold.NullInt{Int: 42, Valid: true}
		w := canonical(want) // the same for every probe
		for _, pr := range probes {
			u := spi.Envelope{ID: "u", WorkflowID: "wf-1", ExecutionID: "exec-1", EventType: pr.typ, Sequence: int64(k + 1), Timestamp: 42, Payload: payload}
			if len(in.Log) > 0 {
				u.ExecutionID = in.Log[0].ExecutionID
			}
			if pr.meta != "" {
				u.Metadata = json.RawMessage(pr.meta)
			}
			got, err := tg.Fold(in.Writer, &s, []spi.Envelope{u})
			if err != nil {
				return fmt.Errorf("Fold(prefix %d + %s) = %v", k, pr.typ, err)
			}
			if reflect.DeepEqual(got, want) { // cheap, and equal values print equal bytes
				continue
			}
			if g := canonical(got); g != w {
				return fmt.Errorf("%s (metadata %s) after prefix %d is not inert (-want +got):\n%s", pr.typ, pr.meta, k, cmp.Diff(w, g))
			}
		}
	}
	return nil
}

// executionLevel reports whether e may move the status at profile p: the six execution-level
// events of spec §4, and EXECUTION_CONTINUED only when kernel-stamped from 1.23.0 (I-FOLD-18; an
// unstamped or earlier one is an application event and a no-op).
func executionLevel(e spi.Envelope, p fold.Profile) bool {
	switch e.EventType {
	case "EXECUTION_STARTED", "EXECUTION_SUSPENDED", "EXECUTION_RESUMED", "EXECUTION_COMPLETED", "EXECUTION_FAILED", "EXECUTION_CANCELLED":
		return true
	case "EXECUTION_CONTINUED":
		return p.AtLeast(23) && kernelStamped(e)
	}
	return false
}

// kernelStamped reports whether e's metadata carries kernel: true.
func kernelStamped(e spi.Envelope) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(e.Metadata, &m) == nil && string(m["kernel"]) == "true"
}

// checkStatusOnly: between consecutive prefixes the status moves only on an execution-level
// event, and a STEP_* event changes no variable — except that a STEP_FAILED folded while
// suspended may set _failedWhileParked to true (spec §4, 1.21.0), and that a metadata.flowEmit
// stamp counts in _flowEmits whatever the type (I-FOLD-4).
func checkStatusOnly(tg Target, in Input) error {
	prev, err := tg.Fold(in.Writer, nil, nil)
	if err != nil {
		return fmt.Errorf("Fold(empty) = %v", err)
	}
	for k, e := range in.Log {
		cur, err := tg.Fold(in.Writer, &prev, in.Log[k:k+1])
		if err != nil {
			return fmt.Errorf("Fold(envelope %d) = %v", k, err)
		}
		if cur.Status != prev.Status && !executionLevel(e, in.Writer) {
			return fmt.Errorf("envelope %d (%s) moved the status %s -> %s", k, e.EventType, prev.Status, cur.Status)
		}
		if strings.HasPrefix(e.EventType, "STEP_") {
			// Drop what a STEP_* event may change: _failedWhileParked when a STEP_FAILED folds while
			// suspended, and _flowEmits (a stamp counts on an envelope of any type, I-FOLD-4).
			parked := e.EventType == "STEP_FAILED" && prev.Status == fold.StatusSuspended &&
				string(cur.Variables.Values[fold.VarFailedWhileParked]) == "true"
			a, b := stepVisible(prev.Variables, parked), stepVisible(cur.Variables, parked)
			if !reflect.DeepEqual(a, b) && canonicalVars(a) != canonicalVars(b) { // DeepEqual first: cheap, and equal values print equal
				d := diff(varsJSON(a), varsJSON(b))
				return fmt.Errorf("envelope %d (%s, status %s) changed variables beyond its frame (-before +after):\n%s", k, e.EventType, prev.Status, d)
			}
		}
		prev = cur
	}
	return nil
}

// stepVisible is v without what a STEP_* event may change (see checkStatusOnly).
func stepVisible(v fold.Variables, parked bool) fold.Variables {
	v.FlowEmits = nil
	if parked {
		v.Values = maps.Clone(v.Values)
		delete(v.Values, fold.VarFailedWhileParked)
		if len(v.Values) == 0 {
			v.Values = nil
		}
	}
	return v
}

// canonicalVars is the canonical JSON of variables v.
func canonicalVars(v fold.Variables) string {
	return canonical(fold.State{Variables: v})
}

// varsJSON decodes variables v, for a diff.
func varsJSON(v fold.Variables) map[string]any {
	var m map[string]any
	json.Unmarshal([]byte(canonicalVars(v)), &m) //nolint:errcheck // canonical output
	out, _ := m["variables"].(map[string]any)
	return out
}

// checkCrossVersion: a snapshot written by in.Writer at every k, printed and read back as a store
// returns it, read through the normaliser, plus the tail folded as in.Reader, equals the whole log folded as the current profile, except
// for the documented exceptions (Classify); anything else is a defect.
func checkCrossVersion(tg Target, in Input) error {
	full, err := foldAll(tg, fold.Current(), in.Log)
	if err != nil {
		return fmt.Errorf("Fold(all) = %v", err)
	}
	for k := 0; k < len(in.Log); k++ {
		snap, err := tg.Fold(in.Writer, nil, in.Log[:k+1])
		if err != nil {
			return fmt.Errorf("Fold(%s, prefix %d) = %v", in.Writer, k, err)
		}
		// the snapshot as a store hands it back: printed by its writer, read by the reader
		b, err := snap.MarshalJSON()
		if err != nil {
			return fmt.Errorf("snapshot %d written by %s has no canonical JSON: %v", k, in.Writer, err)
		}
		if snap, err = fold.ParseState(b); err != nil {
			return fmt.Errorf("ParseState(snapshot %d written by %s) = %v", k, in.Writer, err)
		}
		norm := tg.Normalize(snap, in.Writer)
		got, err := tg.Fold(in.Reader, &norm, in.Log[k+1:])
		if err != nil {
			return fmt.Errorf("Fold(%s, normalized snapshot@%d, tail) = %v", in.Reader, k, err)
		}
		if v := Classify(got, full, in.Writer, in.Reader, in.Log[:k+1]); v.Defect != "" {
			return fmt.Errorf("snapshot written by %s at %d, tail folded by %s: a difference no documented exception explains (-want +got):\n%s",
				in.Writer, k, in.Reader, v.Defect)
		}
	}
	return nil
}

// checkDifferential: on the core subset the fold agrees with ModelFold.
func checkDifferential(tg Target, in Input) error {
	want, err := ModelFold(in.Log)
	if err != nil {
		return err
	}
	s, err := foldAll(tg, fold.Current(), in.Log)
	if err != nil {
		return fmt.Errorf("Fold = %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(canonical(s)), &got); err != nil {
		return err
	}
	if !reflect.DeepEqual(want, got) { // decoded JSON: DeepEqual agrees with cmp.Equal, cheaper; Diff only to report
		return fmt.Errorf("Fold disagrees with the model (-model +fold):\n%s", diff(want, got))
	}
	return nil
}

// diff is cmp.Diff of two decoded JSON values, or of their JSON texts when either nests deeper
// than maxDiffDepth: go-cmp's time doubles with every level of nesting, and hostile logs hold
// values 200 levels deep.
func diff(want, got any) string {
	if depthOf(want) > maxDiffDepth || depthOf(got) > maxDiffDepth {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		return cmp.Diff(string(w), string(g))
	}
	return cmp.Diff(want, got)
}

// maxDiffDepth is the deepest nesting diff compares by value (milliseconds at worst).
const maxDiffDepth = 12

// depthOf is the nesting of a decoded JSON value.
func depthOf(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}
