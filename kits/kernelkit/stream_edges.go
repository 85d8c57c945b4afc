package kernelkit

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// streamEdgeChecks: how the streaming form ends (I-WIRE-51): a request judged before any chunk is
// read, and a refused chunk answered by its own line, then the error that refused it.
func streamEdgeChecks() []kitCheck {
	return []kitCheck{
		check("kernel/stream/chunk-refused-line", spec.MustNot, "a chunk that is not a strict JSON value (text that is not JSON; a key named twice, unless the kernel takes it as I-NET-50 allows) is answered {\"chunk\": i, \"error\"} with its code (-32602 kind duplicate-key, -32700), then the stream ends with that JSON-RPC error; the chunks before it are appended, nothing of it or after it",
			kkStreamChunkLine, "I-WIRE-51", "I-NET-50", "I-WIRE-7"),
		check("kernel/stream/judged-before-chunks", spec.MustNot, "a streaming request with another driver's token (-32002), on an execution that has no log (-32003) or with an empty args.eventType (-32602) is answered by that error alone, one line, before any chunk is read: no chunk acknowledged, nothing appended",
			kkStreamJudgedFirst, "I-WIRE-51", "I-WIRE-3", "I-WIRE-25"),
	}
}

// jsonLines shows an NDJSON answer as its lines' JSON values, one array, never as quoted text (a
// line that is not JSON is shown quoted).
type jsonLines []string

func (l jsonLines) String() string {
	parts := make([]string, len(l))
	for i, s := range l {
		if json.Valid([]byte(s)) {
			parts[i] = strings.TrimSpace(s)
		} else {
			parts[i] = string(mustJSON(s))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// linesOf shows an NDJSON body as its lines' JSON values.
func linesOf(b []byte) jsonLines {
	var out jsonLines
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// refusedStream reads the lines of a stream a chunk refused: acks for the chunks before it, its own
// line {chunk: at, error} with code, then the JSON-RPC error with code. It says what differs.
func refusedStream(lines []string, at, code int) bool {
	if len(lines) != at+2 {
		return false
	}
	for i := 0; i < at; i++ {
		var a carrier.Ack
		if json.Unmarshal([]byte(lines[i]), &a) != nil || a.Chunk != i || a.Error != nil {
			return false
		}
	}
	var a carrier.Ack
	var r carrier.Response
	return json.Unmarshal([]byte(lines[at]), &a) == nil && a.Chunk == at && a.Error != nil && a.Error.Code == code &&
		json.Unmarshal([]byte(lines[at+1]), &r) == nil && r.Error != nil && r.Error.Code == code && r.Result == nil
}

func kkStreamChunkLine(ctx context.Context, c *Case) error {
	var lenient error // a legal option other than ours: said once every required comparison held
	for _, k := range []struct {
		what   string
		chunks []string
		at     int
		code   int
	}{
		{"chunk 1 names a key twice", []string{`"ok"`, `{"a":1,"a":2}`, `"never"`}, 1, carrier.CodeInvalidParams},
		{"chunk 0 is not JSON", []string{`nope`, `"never"`}, 0, carrier.CodeParseError},
	} {
		d, err := startExec(ctx, c, "stream-chunk")
		if err != nil {
			return err
		}
		lines, err := postStream(ctx, c, "syscall.stream", d.ExecutionID, d.Token, "token", k.chunks...)
		if err != nil {
			return c.Failf("POST syscall.stream", k.what, err, "an NDJSON answer")
		}
		if k.code == carrier.CodeInvalidParams && acceptedStream(lines, len(k.chunks)) {
			// a repeated key may be read as JSON.parse reads it (I-NET-50): the whole stream taken is
			// another legal option (what it records is kernel/bad-input/strict-json's, I-WIRE-62)
			lenient = c.Cite("I-NET-50").Failf("POST syscall.stream", k.what, jsonLines(lines), jsonLines(wantRefused(k.at, k.code)))
			continue
		}
		if !refusedStream(lines, k.at, k.code) {
			return c.Cite("I-WIRE-51", "I-WIRE-7").Failf("POST syscall.stream", k.what, jsonLines(lines), jsonLines(wantRefused(k.at, k.code)))
		}
		log, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		var got []string
		for _, e := range log[1:] {
			got = append(got, entry(e.EventType, string(e.Payload)))
		}
		var want []string
		for _, ch := range k.chunks[:k.at] {
			want = append(want, entry("token", ch))
		}
		if err := c.Diff("log", d.ExecutionID+" after a stream whose "+k.what, want, got); err != nil {
			return err
		}
	}
	return lenient
}

// acceptedStream reports whether lines acknowledge each of n chunks and end with a result.
func acceptedStream(lines []string, n int) bool {
	if len(lines) != n+1 {
		return false
	}
	for i := 0; i < n; i++ {
		var a carrier.Ack
		if json.Unmarshal([]byte(lines[i]), &a) != nil || a.Chunk != i || a.Error != nil {
			return false
		}
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal([]byte(lines[n]), &r) == nil && len(r.Result) > 0
}

// wantRefused describes the lines of a stream refused at chunk at with code.
func wantRefused(at, code int) []string {
	var out []string
	for i := 0; i < at; i++ {
		out = append(out, string(mustJSON(map[string]int{"chunk": i})))
	}
	e := map[string]any{"code": code, "message": "…"}
	out = append(out, string(mustJSON(map[string]any{"chunk": at, "error": e})))
	return append(out, string(mustJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "error": e})))
}

func kkStreamJudgedFirst(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "stream-first")
	if err != nil {
		return err
	}
	nobody := c.ExecID("nobody")
	for i, k := range []struct {
		what                  string
		execID, token, evtype string
		code                  int
	}{
		{"another driver's token", d.ExecutionID, "not-the-driver", "token", carrier.CodeFenced},
		{"an execution that has no log", nobody, "any-token", "token", carrier.CodeNotFound},
		{"an empty args.eventType", d.ExecutionID, d.Token, "", carrier.CodeInvalidParams},
	} {
		c.Progress(i, 3)
		err := appendsNothing(ctx, c, d.ExecutionID, "a refused streaming request ("+k.what+")", func() error {
			lines, err := postStream(ctx, c, "syscall.stream", k.execID, k.token, k.evtype, `"a"`, `"b"`)
			if err != nil {
				return c.Failf("POST syscall.stream", k.what, err, "an NDJSON answer")
			}
			var r carrier.Response
			if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil || r.Error == nil || r.Error.Code != k.code {
				return c.Failf("POST syscall.stream", k.what, jsonLines(lines), jsonLines{string(mustJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": k.code, "message": "…"}}))})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	err = c.Store.Call(ctx, carrier.MethodGetState, map[string]any{"executionId": nobody}, nil)
	return wantError(c, carrier.MethodGetState, nobody+" (after a stream to it was refused)", err, carrier.CodeNotFound, "")
}
