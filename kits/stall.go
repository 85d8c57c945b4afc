package kits

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
)

// goroutineID is the id of the calling goroutine, as runtime.Stack names it (0 when it cannot
// tell).
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, _ := strconv.ParseUint(string(b[:i]), 10, 64)
		return id
	}
	return 0
}

// stalledCall names the call into the target that a check's goroutine (or one it started) is
// blocked in: the function a frame of package kits called that is not the kits' own nor the Go
// runtime's, e.g. "mystore.(*Store).Read (from kits.esReadersWholeAppend)"; "" when none is found
// (I-CERT-61).
func stalledCall(gid uint64) string {
	if gid == 0 {
		return ""
	}
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	id := strconv.FormatUint(gid, 10)
	var blocks []string
	for _, b := range strings.Split(all, "\n\n") {
		if strings.HasPrefix(b, "goroutine "+id+" [") || strings.Contains(b, " in goroutine "+id+"\n") || strings.HasSuffix(b, " in goroutine "+id) {
			blocks = append(blocks, b)
		}
	}
	for _, b := range blocks {
		if call := callFromKits(b); call != "" {
			return call
		}
	}
	return ""
}

// callFromKits finds, in one goroutine's stack, the innermost frame of package kits and the
// function it called, when that function is the target's.
func callFromKits(block string) string {
	var funcs []string // innermost first
	for _, l := range strings.Split(block, "\n")[1:] {
		if l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "created by ") {
			continue
		}
		if k := strings.LastIndex(l, "("); k > 0 {
			l = l[:k]
		}
		funcs = append(funcs, l)
	}
	const kitsPkg = "github.com/loom-kernel/loom-conform/kits."
	for i, f := range funcs {
		if !strings.HasPrefix(f, kitsPkg) || i == 0 {
			continue
		}
		// The frames inside the call: the outermost of them that is not the standard library's is
		// the call the check made.
		for j := i - 1; j >= 0; j-- {
			if callee := funcs[j]; !stdlib(callee) {
				return shortFunc(callee) + " (from " + shortFunc(f) + ")"
			}
		}
		return ""
	}
	return ""
}

// stdlib reports whether fn belongs to the Go runtime or standard library (no dot before the
// first slash of its package path).
func stdlib(fn string) bool {
	path := fn
	if i := strings.LastIndex(path, "/"); i >= 0 {
		path = path[:i]
	}
	first := path
	if i := strings.Index(first, "/"); i >= 0 {
		first = first[:i]
	}
	return !strings.Contains(first, ".")
}

// shortFunc drops the package path's directories: "github.com/acme/store.(*Store).Read" becomes
// "store.(*Store).Read".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// stalledViolation is the first comparison in err whose call gave up because the check's time
// limit passed (its error is the context's), or nil.
func stalledViolation(err error) *Violation {
	for _, v := range Violations(err) {
		if errors.Is(v.Err, context.DeadlineExceeded) || errors.Is(v.Err, context.Canceled) {
			return v
		}
	}
	return nil
}
