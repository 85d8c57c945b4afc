// Package foreignfold is a foreign fold for the vectors harness's own tests: it speaks the line
// protocol of docs/vectors.md over stdin/stdout and answers with the reference fold, optionally
// with one deliberate defect or one other legal option of a choice, so the tests can prove the
// vectors catch exactly that defect and certify that option. The program is
// vectors/testdata/foreignfold; the package tests run the same code by re-executing their own
// binary.
//
//	foreignfold [-bug NAME] [-hang-on IDS] [-crash-on IDS] [-garbage-on IDS]
//
// Defects: -bug forget-failed-while-parked folds envelope by envelope and drops _failedWhileParked
// after each one (a fold that never implemented 1.21.0's flag); -bug bytes-order sorts object keys
// by UTF-8 bytes instead of UTF-16 code units; -bug no-seq never stamps a decision's seq (1.24.0);
// -bug strict-integers reads envelopes with encoding/json into int64 fields, so an integral
// sequence or timestamp spelled 0.0 or 1e3 is refused as invalid-envelope (the deviation
// `vectors fuzz` must find and shrink; I-FOLD-22).
//
// Other legal options, each breaking only the choice it names (the vectors certify each with
// recommendations not met): -bug other-error-kinds refuses exactly the logs the reference refuses
// but names the refusal by its own order, executionId before sequence before shape, a missing or
// non-integer sequence being a sequence fault (I-FOLD-22, I-FOLD-23); -bug stamp-canonical counts
// a flowEmit stamp that is not a string under its canonical JSON text (I-FOLD-4); -bug
// decision-keeps-first keeps a decision's first record when its id is recorded again (I-FOLD-12);
// -bug drop-oldest-at-bound makes room for a quarantine at the 1 024 bound by dropping the queue's
// oldest held entry (I-FOLD-10); -bug meter-whole ignores a whole RESOURCE_METERED when one of its
// measurements is invalid (I-FOLD-15); -bug release-usable reads a release's operator only when it
// is a string and auto only when it is true (I-FOLD-27); -bug keep-previous keeps _input, _output
// or _error when the event that writes it lacks the member (I-FOLD-17); -bug pending-until-start
// keeps a log without EXECUTION_STARTED pending (I-FOLD-28).
//
// -bug trivial answers every request with an empty output without looking at it (the protocol's
// cost alone). -hang-on, -crash-on and -garbage-on take comma-separated vector ids at which the
// process never answers, exits with status 3, or writes a line that is not a response.
package foreignfold

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/vectors"
)

// Main runs the foreign fold with the given arguments on stdin/stdout and returns its exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("foreignfold", flag.ContinueOnError)
	bug := fs.String("bug", "none", "none, forget-failed-while-parked, bytes-order, no-seq, strict-integers, other-error-kinds, stamp-canonical, decision-keeps-first, drop-oldest-at-bound, meter-whole, release-usable, keep-previous, pending-until-start or trivial")
	hang := fs.String("hang-on", "", "comma-separated vector ids to never answer")
	crash := fs.String("crash-on", "", "comma-separated vector ids to exit at")
	garbage := fs.String("garbage-on", "", "comma-separated vector ids to answer out of protocol")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *bug == "trivial" {
		trivial()
		return 0
	}
	f := &folder{bug: *bug, hang: set(*hang), crash: set(*crash), garbage: set(*garbage)}
	if err := vectors.Serve(context.Background(), os.Stdin, os.Stdout, f); err != nil {
		fmt.Fprintln(os.Stderr, "foreignfold:", err)
		return 1
	}
	return 0
}

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, x := range strings.Split(s, ",") {
		if x != "" {
			m[x] = true
		}
	}
	return m
}

// trivial answers each line with the id it carries and an empty output.
func trivial() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(in.Bytes(), &req)
		id, _ := json.Marshal(req.ID)
		fmt.Fprintf(out, "{\"id\":%s,\"output\":\"\"}\n", id)
		out.Flush()
	}
}

type folder struct {
	bug                  string
	hang, crash, garbage map[string]bool
}

func (f *folder) Answer(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	switch {
	case f.hang[req.ID]:
		fmt.Fprintln(os.Stderr, "foreignfold: hanging on", req.ID)
		time.Sleep(time.Hour)
	case f.crash[req.ID]:
		fmt.Fprintln(os.Stderr, "foreignfold: crashing on", req.ID)
		os.Exit(3)
	case f.garbage[req.ID]:
		fmt.Println("this is not a response")
	}
	switch f.bug {
	case "forget-failed-while-parked":
		if req.Kind == vectors.KindFold {
			return forgetFailedWhileParked(req), nil
		}
	case "bytes-order":
		return bytesOrder(ctx, req)
	case "no-seq":
		if req.Kind == vectors.KindFold {
			return noSeq(ctx, req)
		}
	case "other-error-kinds":
		return otherErrorKinds(ctx, req)
	case "stamp-canonical":
		return stampCanonical(ctx, req)
	case "decision-keeps-first":
		return decisionKeepsFirst(ctx, req)
	case "drop-oldest-at-bound":
		return dropOldestAtBound(ctx, req)
	case "meter-whole":
		return meterWhole(ctx, req)
	case "release-usable":
		return releaseUsable(ctx, req)
	case "keep-previous":
		return keepPrevious(ctx, req)
	case "pending-until-start":
		return pendingUntilStart(ctx, req)
	case "strict-integers":
		if req.Kind == vectors.KindFold && req.Events != nil {
			for _, raw := range *req.Events {
				var e spi.Envelope
				if err := json.Unmarshal(raw, &e); err != nil {
					var te *json.UnmarshalTypeError
					if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
						return vectors.Response{ID: req.ID, Error: vectors.ErrInvalidEnvelope, Message: err.Error()}, nil
					}
				}
			}
		}
	}
	return vectors.Reference{}.Answer(ctx, req)
}

// otherErrorKinds answers as the reference does, but a log the reference refuses for an envelope is
// refused under the kind this fold's own order finds first in the envelope at fault: executionId,
// then sequence (missing, not a whole number, or not the next), then shape.
func otherErrorKinds(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	r, err := vectors.Reference{}.Answer(ctx, req)
	if err != nil || req.Kind != vectors.KindFold || req.Events == nil ||
		(r.Error != vectors.ErrInvalidEnvelope && r.Error != vectors.ErrSequence && r.Error != vectors.ErrMixedExecutions) {
		return r, err
	}
	next := 0.0
	if req.Snapshot != nil {
		var s struct{ Sequence float64 }
		if json.Unmarshal(req.Snapshot, &s) == nil {
			next = s.Sequence + 1
		}
	}
	first := ""
	for i, raw := range *req.Events {
		kind := ""
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) != nil {
			kind = vectors.ErrInvalidEnvelope
		} else {
			var x string
			isStr := json.Unmarshal(e["executionId"], &x) == nil && e["executionId"] != nil && string(e["executionId"]) != "null"
			if i == 0 && isStr {
				first = x
			}
			var seq float64
			switch {
			case i > 0 && isStr && x != first:
				kind = vectors.ErrMixedExecutions
			case json.Unmarshal(e["sequence"], &seq) != nil || e["sequence"] == nil || string(e["sequence"]) == "null" || seq != next:
				kind = vectors.ErrSequence
			default:
				if _, derr := fold.DecodeEnvelope(i, raw); derr != nil {
					kind = vectors.ErrInvalidEnvelope
				}
			}
		}
		if kind != "" {
			return vectors.Response{ID: req.ID, Error: kind, Message: fmt.Sprintf("other-error-kinds: envelope %d (the reference says %s)", i, r.Error)}, nil
		}
		next++
	}
	return r, nil
}

// forgetFailedWhileParked folds one envelope at a time and removes _failedWhileParked after each,
// so the flag never exists and never makes a null resume status-only.
func forgetFailedWhileParked(req vectors.Request) vectors.Response {
	if whole, _ := (vectors.Reference{}).Answer(context.Background(), req); whole.Error != "" {
		return whole // the defect is the flag, not input validation
	}
	// The snapshot as the reference reads it (normalised for its writer), minus the flag.
	r, err := vectors.Reference{}.Answer(context.Background(), vectors.Request{Kind: req.Kind, ID: req.ID, Profile: req.Profile,
		Snapshot: req.Snapshot, SnapshotProfile: req.SnapshotProfile, Events: &[]json.RawMessage{}})
	if err != nil || r.Error != "" {
		return r
	}
	st, err := fold.ParseState([]byte(*r.Output))
	if err != nil {
		return vectors.Response{ID: req.ID, Error: vectors.ErrInternal, Message: err.Error()}
	}
	st = without(st)
	p, err := fold.ProfileFor(req.Profile)
	if err != nil {
		return vectors.Response{ID: req.ID, Error: vectors.ErrUnsupported, Message: err.Error()}
	}
	for i, raw := range *req.Events {
		e, err := fold.DecodeEnvelope(i, raw)
		if err != nil {
			return vectors.Response{ID: req.ID, Error: vectors.ErrInvalidEnvelope, Message: err.Error()}
		}
		next, err := fold.Fold(p, &st, []spi.Envelope{e})
		if err != nil { // the whole request gives the reference's error kind
			r, _ := vectors.Reference{}.Answer(context.Background(), req)
			return r
		}
		st = without(next)
	}
	b, err := st.MarshalJSON()
	if err != nil {
		return vectors.Response{ID: req.ID, Error: vectors.ErrInternal, Message: err.Error()}
	}
	s := string(b)
	return vectors.Response{ID: req.ID, Output: &s}
}

// without returns s minus _failedWhileParked.
func without(s fold.State) fold.State {
	if _, ok := s.Variables.Values[fold.VarFailedWhileParked]; !ok {
		return s
	}
	vals := map[string]json.RawMessage{}
	for k, v := range s.Variables.Values {
		if k != fold.VarFailedWhileParked {
			vals[k] = v
		}
	}
	s.Variables.Values = vals
	return s
}

// noSeq answers as the reference does but never stamps seq on _decisions entries (a fold that
// predates 1.24.0).
func noSeq(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	r, err := vectors.Reference{}.Answer(ctx, req)
	if err != nil || r.Output == nil {
		return r, err
	}
	st, err := fold.ParseState([]byte(*r.Output))
	if err != nil {
		return vectors.Response{ID: req.ID, Error: vectors.ErrInternal, Message: err.Error()}, nil
	}
	ds := map[string]fold.Decision{}
	for id, d := range st.Variables.Decisions {
		d.HasSeq, d.Seq = false, 0
		ds[id] = d
	}
	if st.Variables.Decisions != nil {
		st.Variables.Decisions = ds
	}
	b, err := st.MarshalJSON()
	if err != nil {
		return vectors.Response{ID: req.ID, Error: vectors.ErrInternal, Message: err.Error()}, nil
	}
	s := string(b)
	r.Output = &s
	return r, nil
}

// bytesOrder answers as the reference does but with object keys sorted by UTF-8 bytes.
func bytesOrder(ctx context.Context, req vectors.Request) (vectors.Response, error) {
	if req.Kind == vectors.KindDigest {
		canon, err := fold.Canonical([]any{req.EventType, req.Payload})
		if err != nil {
			return vectors.Response{ID: req.ID, Error: vectors.ErrInternal, Message: err.Error()}, nil
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%d|%s", *req.Segment, resort(canon))
		s := fmt.Sprintf("%016x", h.Sum64())
		return vectors.Response{ID: req.ID, Output: &s}, nil
	}
	r, err := vectors.Reference{}.Answer(ctx, req)
	if err != nil || r.Output == nil {
		return r, err
	}
	s := string(resort([]byte(*r.Output)))
	r.Output = &s
	return r, nil
}

// resort rewrites canonical JSON (no whitespace) with every object's members ordered by the bytes
// of their keys as written.
func resort(b []byte) []byte {
	out, _ := value(b, 0)
	return out
}

// value rewrites the value at b[i] and returns it with the index past it.
func value(b []byte, i int) ([]byte, int) {
	switch b[i] {
	case '"':
		j := str(b, i)
		return b[i:j], j
	case '[':
		out := []byte{'['}
		i++
		for b[i] != ']' {
			v, j := value(b, i)
			out = append(out, v...)
			i = j
			if b[i] == ',' {
				out = append(out, ',')
				i++
			}
		}
		return append(out, ']'), i + 1
	case '{':
		type member struct{ key, val []byte }
		var ms []member
		i++
		for b[i] != '}' {
			j := str(b, i)
			key := b[i:j]
			v, k := value(b, j+1) // skip ':'
			ms = append(ms, member{key, v})
			i = k
			if b[i] == ',' {
				i++
			}
		}
		for x := 1; x < len(ms); x++ { // insertion sort by key bytes
			for y := x; y > 0 && string(ms[y].key) < string(ms[y-1].key); y-- {
				ms[y], ms[y-1] = ms[y-1], ms[y]
			}
		}
		out := []byte{'{'}
		for x, m := range ms {
			if x > 0 {
				out = append(out, ',')
			}
			out = append(out, m.key...)
			out = append(out, ':')
			out = append(out, m.val...)
		}
		return append(out, '}'), i + 1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != ']' && b[j] != '}' {
		j++
	}
	return b[i:j], j
}

// str returns the index just past the string starting at b[i].
func str(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}
