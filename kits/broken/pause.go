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

// gap is the window of a check-then-act store between its check and its act: held as held does
// (a pause of a round trip's length), or, when natural, one yield of the processor and nothing
// more — the correct logic with its lock released between the two critical sections, the window
// a real store has over one natural round trip.
func gap(natural bool, held func()) {
	if natural {
		runtime.Gosched()
		return
	}
	held()
}
