package broken

import "time"

// yield widens the window between a check and its act, as a network round trip would.
func yield() { time.Sleep(time.Millisecond) }

// midway is how long a broken store whose racing writers interleave waits between two of its
// steps: about one network round trip to a database on the same host, what two statements without
// a transaction cost. (A write that readers may see half-done holds its window instead.)
const midway = 100 * time.Microsecond
