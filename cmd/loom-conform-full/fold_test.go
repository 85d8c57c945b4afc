package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(seq, typ, payload string) string {
	return `{"id":"e` + seq + `","workflowId":"w","executionId":"x","eventType":"` + typ + `","sequence":` + seq + `,"timestamp":1,"payload":` + payload + `}`
}

// Reference: DESIGN §9 — `fold` prints the canonical state of an array or NDJSON log, onto a
// snapshot, as a profile.
func TestFoldCommand(t *testing.T) {
	log := "[" + env("0", "EXECUTION_STARTED", `{"input":{"b":1,"a":2}}`) + "," + env("1", "STEP_FAILED", `{"stepId":"s","error":"e"}`) + "]"
	want := `{"frames":{"s":{"attempt":1,"error":"e","status":"failed","stepId":"s"}},"sequence":1,"startedAt":1,"status":"running","updatedAt":1,"variables":{"_input":{"a":2,"b":1}}}` + "\n"
	var out, errb bytes.Buffer
	if code := run([]string{"fold"}, strings.NewReader(log), &out, &errb); code != 0 || out.String() != want {
		t.Fatalf("cli/fold [S4.fold.step-failed-not-fatal]: fold (array) = %d %q %q, want 0 %q", code, out.String(), errb.String(), want)
	}
	ndjson := env("0", "EXECUTION_STARTED", `{"input":{"b":1,"a":2}}`) + "\n" + env("1", "STEP_FAILED", `{"stepId":"s","error":"e"}`) + "\n"
	out.Reset()
	if code := run([]string{"fold", "-"}, strings.NewReader(ndjson), &out, &errb); code != 0 || out.String() != want {
		t.Fatalf("cli/fold: fold - (NDJSON) = %d %q, want %q", code, out.String(), want)
	}
	out.Reset()
	if code := run([]string{"fold", "--profile", "1.20.0"}, strings.NewReader(ndjson), &out, &errb); code != 0 || !strings.Contains(out.String(), `"status":"failed"`) {
		t.Fatalf("cli/fold: fold --profile 1.20.0 = %d %q, want status failed", code, out.String())
	}
	dir := t.TempDir()
	snap := filepath.Join(dir, "snap.json")
	logf := filepath.Join(dir, "tail.ndjson")
	os.WriteFile(snap, []byte(`{"status":"running","frames":{},"variables":{"_input":{"a":2,"b":1}},"sequence":0,"startedAt":1,"updatedAt":1}`), 0o644)
	os.WriteFile(logf, []byte(env("1", "STEP_FAILED", `{"stepId":"s","error":"e"}`)), 0o644)
	out.Reset()
	if code := run([]string{"fold", "--snapshot", snap, logf}, nil, &out, &errb); code != 0 || out.String() != want {
		t.Fatalf("cli/fold [S4.snapshot.every-k]: fold --snapshot = %d %q %q, want %q", code, out.String(), errb.String(), want)
	}
	// A snapshot written by 1.20.0 (a caught step failure folded failed) is normalised.
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"status":"failed","frames":{"s":{"stepId":"s","status":"failed","attempt":1,"error":"e","input":1}},"variables":{},"sequence":1,"startedAt":1,"updatedAt":1}`), 0o644)
	out.Reset()
	if code := run([]string{"fold", "--snapshot", old, "--snapshot-profile", "1.20.0"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), `"status":"running"`) || strings.Contains(out.String(), `"input"`) {
		t.Fatalf("cli/fold [S4.snapshot.normalize-pre-1.21 S4.v1_26.normalize-strips-input]: fold --snapshot-profile 1.20.0 = %d %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run([]string{"fold"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), `"sequence":-1`) {
		t.Fatalf("cli/fold [S2.state.shape]: fold of an empty log = %d %q", code, out.String())
	}
}

// deepReader yields `prefix`, then n copies of open, n of close, then `suffix`, without holding them.
type patternReader struct {
	parts []struct {
		b []byte
		n int
	}
}

func (r *patternReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) && len(r.parts) > 0 {
		part := &r.parts[0]
		if part.n == 0 {
			r.parts = r.parts[1:]
			continue
		}
		c := copy(p[w:], part.b)
		if c < len(part.b) { // only whole units; the caller's buffer is large enough for the next call
			if w == 0 {
				return 0, io.ErrShortBuffer
			}
			return w, nil
		}
		w += c
		part.n--
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}

func pattern(segs ...any) io.Reader {
	r := &patternReader{}
	for i := 0; i < len(segs); i += 2 {
		r.parts = append(r.parts, struct {
			b []byte
			n int
		}{[]byte(segs[i].(string)), segs[i+1].(int)})
	}
	return r
}

// Reference: DESIGN §9, I-FOLD-1, I-FOLD-11 — bad input exits 2 naming the envelope index and
// field; never a panic; memory stays bounded.
func TestFoldBadInput(t *testing.T) {
	head := `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":`
	for _, c := range []struct {
		name string
		in   io.Reader
		want []string
	}{
		{"not JSON", strings.NewReader("garbage"), []string{"envelope 0", "want an envelope object"}},
		{"truncated", strings.NewReader(`[` + env("0", "T", "{}") + `,`), []string{"envelope 1"}},
		{"bad payload JSON", strings.NewReader(head + `{"x":tru}}`), []string{"envelope 0: payload", "invalid JSON"}},
		{"id not a string", strings.NewReader(`{"id":1,"workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1,"payload":{}}`), []string{"envelope 0: id: want a string"}},
		{"sequence a string", strings.NewReader(`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":"0","timestamp":1,"payload":{}}`), []string{"envelope 0: sequence"}},
		{"sequence not an integer", strings.NewReader(`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0.5,"timestamp":1,"payload":{}}`), []string{"envelope 0: sequence"}},
		{"sequence missing", strings.NewReader(env("0", "T", "{}") + "\n" + `{"id":"a","workflowId":"w","executionId":"x","eventType":"T","timestamp":1,"payload":{}}`), []string{"envelope 1: sequence: missing"}},
		{"timestamp wrong", strings.NewReader(`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":"now","payload":{}}`), []string{"envelope 0: timestamp"}},
		{"payload missing", strings.NewReader(`{"id":"a","workflowId":"w","executionId":"x","eventType":"T","sequence":0,"timestamp":1}`), []string{"envelope 0: payload: missing"}},
		{"metadata not an object", strings.NewReader(head + `{},"metadata":[1]}`), []string{"envelope 0: metadata"}},
		{"out of order", strings.NewReader(env("0", "T", "{}") + env("2", "T", "{}") + env("1", "T", "{}")), []string{"envelope 1: sequence: got 2, want 1"}},
		{"not dense", strings.NewReader(env("0", "T", "{}") + env("1", "T", "{}") + env("3", "T", "{}")), []string{"envelope 2: sequence: got 3, want 2"}},
		{"starts at 1", strings.NewReader(env("1", "T", "{}")), []string{"envelope 0: sequence: got 1, want 0"}},
		{"mixed executions", strings.NewReader(env("0", "T", "{}") + strings.Replace(env("1", "T", "{}"), `"x"`, `"y"`, 1)), []string{"envelope 1: executionId"}},
		{"nesting 100000 deep", pattern(head, 1, "[", 100000, "]", 100000, "}", 1), []string{"envelope 0: payload: nesting deeper than 10000"}},
		{"64 MiB payload", pattern(head+`"`, 1, strings.Repeat("a", 4096), 16384, `"}`, 1), []string{"envelope 0: payload: envelope larger than"}},
		{"trailing garbage", strings.NewReader("[" + env("0", "T", "{}") + "] x"), []string{"envelope 1", "after the array"}},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"fold"}, c.in, &out, &errb)
		msg := errb.String()
		ok := code == 2 && out.Len() == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(msg, w)
		}
		if !ok {
			t.Errorf("cli/fold-bad-input [I-FOLD-1 I-FOLD-11]: fold(%s) = exit %d, stderr %q, want exit 2 naming %q", c.name, code, msg, c.want)
		}
	}
	// a log file is read whole and folded in place (fold.FoldBytes): the same refusals, worded
	// the same, as when it streams in
	dir := t.TempDir()
	for i, c := range []string{"garbage", `[` + env("0", "T", "{}") + `,`, head + `{"x":tru}}`, `{"id":1,"workflowId":"w"}`,
		env("0", "T", "{}") + env("2", "T", "{}"), "[" + env("0", "T", "{}") + "] x", head + `{},"metadata":[1]}`, "[" + env("0", "T", "{}") + "]"} {
		f := filepath.Join(dir, fmt.Sprintf("log%d", i))
		if err := os.WriteFile(f, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		var sout, serr, fout, ferr bytes.Buffer
		scode := run([]string{"fold"}, strings.NewReader(c), &sout, &serr)
		fcode := run([]string{"fold", f}, nil, &fout, &ferr)
		if fcode != scode || fout.String() != sout.String() || strings.Replace(ferr.String(), f, "stdin", 1) != serr.String() {
			t.Errorf("cli/fold-bad-input [I-FOLD-1 I-FOLD-11]: fold FILE(%q) = exit %d, %q, stderr %q, want stdin's exit %d, %q, stderr %q",
				c, fcode, fout.String(), ferr.String(), scode, sout.String(), serr.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"fold", "--profile", "1.19.0"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("cli/fold-bad-input: --profile 1.19.0 = exit %d, want 2", code)
	}
	if code := run([]string{"fold", "--snapshot", "/nonexistent"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("cli/fold-bad-input: --snapshot missing file = exit %d, want 2", code)
	}
}

// Reference: spec §3 emit identity — `digest` prints the flowEmit stamp.
func TestDigestCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"digest", "--segment", "0", "--event-type", "progress", "--payload", `{"p":1}`}, nil, &out, &errb); code != 0 || out.String() != "e5dc3cdf3f69d31d\n" {
		t.Fatalf("cli/digest [S3.emit.identity]: digest = %d %q %q, want e5dc3cdf3f69d31d", code, out.String(), errb.String())
	}
	for _, args := range [][]string{
		{"digest", "--segment", "0", "--event-type", "p", "--payload", `{`},
		{"digest", "--event-type", "p", "--payload", `{}`},
		{"digest", "--segment", "-1", "--event-type", "p", "--payload", `{}`},
	} {
		if code := run(args, nil, &out, &errb); code != 2 {
			t.Errorf("cli/digest [S3.emit.identity]: %v = exit %d, want 2", args, code)
		}
	}
}
