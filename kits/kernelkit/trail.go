package kernelkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Trail is the record of the calls one check made to the kernel, so that a failure says what was
// done before the failing call (its setup) and a check cut short says which call took the time,
// without the reader opening the kit's Go source. Traced makes the client that records it.
type Trail struct {
	mu       sync.Mutex
	calls    []bridge.Exchange
	inFlight map[string][]time.Time // method → when each call now in flight began
}

// Traced returns a client of cl's kernel (sharing its connections) whose calls t records.
func Traced(cl *carrier.Client) (*carrier.Client, *Trail) {
	t := &Trail{inFlight: map[string][]time.Time{}}
	return cl.Observed(t.ended, t.began), t
}

func (t *Trail) began(method string) {
	t.mu.Lock()
	t.inFlight[method] = append(t.inFlight[method], time.Now())
	t.mu.Unlock()
}

func (t *Trail) ended(x bridge.Exchange) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if q := t.inFlight[x.Method]; len(q) > 0 {
		t.inFlight[x.Method] = q[1:]
	}
	t.calls = append(t.calls, x)
}

// trailShown is how many of the last calls a setup names (the earlier ones are counted).
const trailShown = 12

// Setup is the trail for a failure message: the check's calls, oldest first, each with its answer
// as decoded JSON (reads of the execution's state and the handshake, the kit's own bookkeeping, are
// counted, not listed); "" when the check made no call.
func (t *Trail) Setup() string {
	t.mu.Lock()
	calls := slices.Clone(t.calls)
	t.mu.Unlock()
	var lines []string
	reads := 0
	for _, x := range calls {
		if x.Method == carrier.MethodGetState || x.Method == carrier.MethodHandshake {
			reads++
			continue
		}
		lines = append(lines, "  "+x.Method+" "+showParams(x.Request)+" → "+showAnswer(x))
	}
	if len(lines) == 0 {
		return ""
	}
	head := "setup — the check's calls, oldest first"
	if reads > 0 {
		what := "reads of state or handshake"
		if reads == 1 {
			what = "read of state or handshake"
		}
		head += fmt.Sprintf(" (%d %s left out)", reads, what)
	}
	if n := len(lines) - trailShown; n > 0 {
		what := "earlier calls"
		if n == 1 {
			what = "earlier call"
		}
		lines = append([]string{fmt.Sprintf("  … %d %s", n, what)}, lines[n:]...)
	}
	return head + ":\n" + strings.Join(lines, "\n")
}

// Slowest describes the call that took longest — one still in flight when the check ended counts
// from its start — and how many calls the check made: for the message of a check cut short.
func (t *Trail) Slowest() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	method, took, open := "", time.Duration(0), false
	for _, x := range t.calls {
		if x.Duration > took {
			method, took = x.Method, x.Duration
		}
	}
	for m, starts := range t.inFlight {
		for _, s := range starts {
			if d := time.Since(s); d > took {
				method, took, open = m, d, true
			}
		}
	}
	if method == "" {
		return fmt.Sprintf("it made %d calls", len(t.calls))
	}
	if open {
		return fmt.Sprintf("its slowest call, %s, was still unanswered after %s (%d calls answered before it)", method, took.Round(time.Millisecond), len(t.calls))
	}
	return fmt.Sprintf("its slowest call, %s, took %s (of %d calls)", method, took.Round(time.Millisecond), len(t.calls))
}

// Median is the median time of the check's answered calls (0 when it made none).
func (t *Trail) Median() time.Duration {
	t.mu.Lock()
	ds := make([]time.Duration, 0, len(t.calls))
	for _, x := range t.calls {
		ds = append(ds, x.Duration)
	}
	t.mu.Unlock()
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// showParams shows a request's params without the members that are the same in every call of a
// check (the execution id, the driver's token), or a streaming request as its line count.
func showParams(req []byte) string {
	first, rest, stream := bytes.Cut(req, []byte("\n"))
	var r struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(first, &r) != nil {
		return clipText(string(first), 120)
	}
	delete(r.Params, "executionId")
	delete(r.Params, "driver")
	s := "{}"
	if len(r.Params) > 0 {
		b, _ := json.Marshal(r.Params)
		s = string(b)
	}
	if stream {
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(rest))
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		var chunks []string
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				n++
				chunks = append(chunks, l)
			}
		}
		s += fmt.Sprintf(" (streaming form, %d chunks: %s)", n, clipText(strings.Join(chunks, " "), 80))
	}
	return clipText(s, 160)
}

// showAnswer shows a response as decoded JSON: the result (driver tokens masked), the error's code,
// kind and message, or a streaming answer's lines.
func showAnswer(x bridge.Exchange) string {
	if x.Err != nil {
		return "no answer: " + clipText(x.Err.Error(), 120)
	}
	lines := bytes.Split(bytes.TrimSpace(x.Response), []byte("\n"))
	if len(lines) > 1 {
		var out []string
		for _, l := range lines {
			out = append(out, string(bytes.TrimSpace(l)))
		}
		return clipText(jsonLines(out).String(), 200)
	}
	var r struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  *bridge.RPCError           `json:"error"`
	}
	if json.Unmarshal(x.Response, &r) != nil {
		return clipText(string(x.Response), 120)
	}
	if r.Error != nil {
		var d struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(r.Error.Data, &d)
		return clipText(fmt.Sprintf("error %d (%s): %s", r.Error.Code, d.Kind, r.Error.Message), 200)
	}
	if _, ok := r.Result["driver"]; ok {
		r.Result["driver"] = json.RawMessage(`"…"`)
	}
	delete(r.Result, "executionId")
	b, _ := json.Marshal(r.Result)
	return clipText(string(b), 160)
}

// clipText cuts s to n runes.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
