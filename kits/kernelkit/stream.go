package kernelkit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// streamChecks: the streaming form of the channel syscalls (ADR 0026 A2; docs/wire.md, "Channel
// syscalls: the streaming form").
func streamChecks() []kitCheck {
	return []kitCheck{
		check("kernel/stream/form", spec.Must, "stream and ui in their streaming form (NDJSON) append one event per chunk, acknowledge each ({\"chunk\": i}) and count them in the response ({\"chunks\": n}); payloads are compared as JSON values, never as text",
			kkStreamForm, "A26.wire.partition", "I-WIRE-7"),
		check("kernel/stream/incremental", spec.Must, "the streaming form acknowledges each chunk as it is appended, before the request body ends: the check sends a chunk only after the previous one's ack (waiting up to half its time limit for an ack, then ending the body to tell a late ack from none)",
			kkStreamIncremental, "I-WIRE-7"),
		check("kernel/stream/refused-chunk", spec.MustNot, "a chunk the kernel refuses (a kernel event type) is answered {\"chunk\": i, \"error\"} and ends the stream with the JSON-RPC error -32023; nothing is appended",
			kkStreamRefused, "I-WIRE-7", "S5.emit.userspace-kernel-refused"),
	}
}

// streamBody is the streaming form of a channel syscall: the request line, then one chunk per line.
func streamBody(method, execID, token, eventType string, chunks ...string) []byte {
	req, _ := json.Marshal(carrier.Request{JSONRPC: "2.0", ID: json.RawMessage(`1`), Method: method,
		Params: mustJSON(map[string]any{"executionId": execID, "driver": token, "args": map[string]any{"eventType": eventType}})})
	var b bytes.Buffer
	b.Write(req)
	for _, ch := range chunks {
		b.WriteString("\n" + ch)
	}
	b.WriteString("\n")
	return b.Bytes()
}

// postStream posts a whole streaming body and returns the answer's lines.
func postStream(ctx context.Context, c *Case, method, execID, token, eventType string, chunks ...string) ([]string, error) {
	resp, err := c.Store.Post(ctx, carrier.ContentTypeStream, streamBody(method, execID, token, eventType, chunks...))
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(resp))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("an empty answer")
	}
	return lines, nil
}

func kkStreamForm(ctx context.Context, c *Case) error {
	for _, name := range []string{"stream", "ui"} {
		d, err := startExec(ctx, c, "stream-"+name)
		if err != nil {
			return err
		}
		before, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		chunks := []string{`"hel"`, `"lo"`, `{"done": true, "n": 2.50}`}
		lines, err := postStream(ctx, c, "syscall."+name, d.ExecutionID, d.Token, "token", chunks...)
		if err != nil {
			return c.Failf("POST syscall."+name, "3 chunks", err, "acks and a response")
		}
		if len(lines) != len(chunks)+1 {
			return c.Failf("POST syscall."+name, "3 chunks", fmt.Sprintf("%d lines: %s", len(lines), jsonLines(lines)), "3 ack lines and the response")
		}
		for i := range chunks {
			var a carrier.Ack
			if json.Unmarshal([]byte(lines[i]), &a) != nil || a.Chunk != i || a.Error != nil {
				return c.Failf("POST syscall."+name, fmt.Sprintf("ack %d", i), lines[i], fmt.Sprintf(`{"chunk":%d}`, i))
			}
		}
		var r carrier.Response
		if json.Unmarshal([]byte(lines[len(chunks)]), &r) != nil || r.Error != nil || !sameJSON(r.Result, `{"chunks":3}`) {
			return c.Failf("POST syscall."+name, "response", lines[len(chunks)], `result {"chunks":3}`)
		}
		after, err := logOf(ctx, c, d.ExecutionID)
		if err != nil {
			return err
		}
		var got []string
		for _, e := range after[len(before):] {
			got = append(got, entry(e.EventType, string(e.Payload)))
		}
		want := []string{entry("token", chunks[0]), entry("token", chunks[1]), entry("token", chunks[2])}
		if err := c.Diff("log", "after the "+name+" stream (payloads as values)", want, got); err != nil {
			return err
		}
	}
	return nil
}

func kkStreamIncremental(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "stream-acks")
	if err != nil {
		return err
	}
	// wait up to half of what is left of the check's time limit for each ack
	patience := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		patience = time.Until(dl) / 2
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Store.URL(), pr)
	if err != nil {
		return c.Unknown("building the request: %v", err)
	}
	req.Header.Set("Content-Type", carrier.ContentTypeStream)
	type answer struct {
		resp *http.Response
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		answered <- answer{resp, err}
	}()
	body := streamBody("syscall.stream", d.ExecutionID, d.Token, "token", `"one"`)
	if _, err := pw.Write(body); err != nil {
		return c.Failf("POST syscall.stream", "the request line and chunk 0", err, "sent")
	}
	var resp *http.Response
	select {
	case a := <-answered:
		if a.err != nil {
			return c.Failf("POST syscall.stream", "chunk 0", a.err, "an answer")
		}
		resp = a.resp
	case <-time.After(patience):
		// no answer while the body is open: end it and see whether the acks come only now
		_ = pw.Close()
		a := <-answered
		if a.err != nil {
			return c.Failf("POST syscall.stream", "chunk 0", a.err, "an answer")
		}
		defer a.resp.Body.Close()
		b, _ := io.ReadAll(a.resp.Body)
		if strings.Contains(string(b), `"chunk"`) {
			return c.Failf("POST syscall.stream", "chunk 0, the body still open", fmt.Sprintf("no answer within %v; the ack came only after the body ended: %s", patience.Round(time.Millisecond), linesOf(b)),
				"chunk 0 acknowledged as it is appended, before the next chunk is sent")
		}
		return c.Unknown("no answer to chunk 0 within %v, nor after the body ended (%s)", patience.Round(time.Millisecond), linesOf(b))
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	for i, next := range []string{`"two"`, ""} {
		line, err := readLine(rd, patience)
		if err != nil {
			return c.Failf("POST syscall.stream", fmt.Sprintf("ack %d, the body still open", i), err, fmt.Sprintf(`{"chunk":%d} before chunk %d is sent`, i, i+1))
		}
		var a carrier.Ack
		if json.Unmarshal([]byte(line), &a) != nil || a.Chunk != i || a.Error != nil {
			return c.Failf("POST syscall.stream", fmt.Sprintf("ack %d", i), line, fmt.Sprintf(`{"chunk":%d}`, i))
		}
		if next == "" {
			_ = pw.Close()
		} else if _, err := pw.Write([]byte(next + "\n")); err != nil {
			return c.Failf("POST syscall.stream", "chunk 1", err, "sent")
		}
	}
	line, err := readLine(rd, patience)
	var r carrier.Response
	if err != nil || json.Unmarshal([]byte(line), &r) != nil || r.Error != nil || !sameJSON(r.Result, `{"chunks":2}`) {
		return c.Failf("POST syscall.stream", "response", show(err, line), `result {"chunks":2}`)
	}
	return nil
}

// readLine reads one line, waiting at most patience for it.
func readLine(rd *bufio.Reader, patience time.Duration) (string, error) {
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := rd.ReadString('\n')
		got <- line{strings.TrimSpace(s), err}
	}()
	select {
	case l := <-got:
		if l.err != nil && l.s == "" {
			return "", l.err
		}
		return l.s, nil
	case <-time.After(patience):
		return "", fmt.Errorf("no line within %v", patience.Round(time.Millisecond))
	}
}

func kkStreamRefused(ctx context.Context, c *Case) error {
	d, err := startExec(ctx, c, "stream-refused")
	if err != nil {
		return err
	}
	return appendsNothing(ctx, c, d.ExecutionID, "a refused stream", func() error {
		lines, err := postStream(ctx, c, "syscall.stream", d.ExecutionID, d.Token, "EXECUTION_COMPLETED", `{"output":"forged"}`, `{"output":"again"}`)
		if err != nil {
			return c.Failf("POST syscall.stream", "eventType EXECUTION_COMPLETED", err, "an NDJSON answer")
		}
		var a carrier.Ack
		var r carrier.Response
		if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &a) != nil || a.Chunk != 0 || a.Error == nil || a.Error.Code != carrier.CodeRefused ||
			json.Unmarshal([]byte(lines[1]), &r) != nil || r.Error == nil || r.Error.Code != carrier.CodeRefused {
			return c.Failf("POST syscall.stream", "eventType EXECUTION_COMPLETED", jsonLines(lines), `{"chunk":0,"error":{-32023…}} then the JSON-RPC error -32023`)
		}
		return nil
	})
}
