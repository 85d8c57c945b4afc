// Package tailbuf keeps the last bytes written to it: a subprocess's stderr, kept for a report
// without holding everything a misbehaving process prints.
//
//	tail := tailbuf.New(64 << 10)
//	cmd.Stderr = tail
//	...
//	fmt.Println(tail.String())
package tailbuf

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that keeps at most the last max bytes. It is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// New returns a Buffer keeping at most max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the tail of everything written; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// String returns the kept bytes.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// Take returns the kept bytes without surrounding white space and forgets them.
func (b *Buffer) Take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(bytes.TrimSpace(b.buf))
	b.buf = nil
	return s
}
