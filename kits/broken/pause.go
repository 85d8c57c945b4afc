package broken

import (
	"runtime"
	"time"
)

// yield widens the window between a check and its act, as a network round trip would.
func yield() { time.Sleep(time.Millisecond) }

// midway is how long a broken store whose racing writers interleave waits between two of its
// steps: about one network round trip to a database on the same host, what two statements without
// a transaction cost. (A write that readers may see half-done holds its window instead.)
const midway = 100 * time.Microsecond

// pace is how a racy store opens its window between a check and its act, or between the parts of
// one write: held (the zero value: a pause, or a window held until a reader saw it, sized so the
// checks see it), natural (one yield of the processor and nothing more: the correct logic with its
// lock released between two critical sections) or roundTrip (one request and its answer over a
// loopback TCP connection, loopback.go: what a client-side check costs a real store before its
// write, the window of the Redis store with its fence checked in the client).
type pace uint8

const (
	paceHeld pace = iota
	paceNatural
	paceRoundTrip
)

// gap is the window of a check-then-act store between its check and its act: held as held does
// when the pace is paceHeld, otherwise the pace's own window.
func gap(p pace, held func()) {
	switch p {
	case paceNatural:
		runtime.Gosched()
	case paceRoundTrip:
		roundTripOnce()
	default:
		held()
	}
}
