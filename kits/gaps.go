package kits

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
)

// idPairs are pairs of ids a store must keep apart on every method of every seam (I-STORE-4,
// I-STORE-27): they differ only by case, by a trailing space, by Unicode normal form (é precomposed
// vs e + U+0301), or one extends the other.
func idPairs(base string) [][2]string {
	return [][2]string{
		{base + "-Case", base + "-case"},
		{base + "-pad", base + "-pad "},
		{base + "-caf\u00e9", base + "-cafe\u0301"},
		{base + "-x", base + "-x0"},
	}
}

// byteOrderIDs are sibling ids whose byte order differs from every case-insensitive, padding or
// locale collation (upper case sorts before lower case, "a" before "a " before "a0"), with the
// order the kit expects (I-STORE-28).
func byteOrderIDs(prefix string) (ids, ascending []string) {
	ids = []string{prefix + "b", prefix + "B", prefix + "a0", prefix + "a", prefix + "A", prefix + "a ",
		prefix + "caf\u00e9", prefix + "cafe\u0301", prefix + "Z", prefix + "_"}
	ascending = append([]string(nil), ids...)
	sort.Strings(ascending) // Go compares strings as bytes
	return ids, ascending
}

// withReaders runs write while readers goroutines call read in a loop, and returns the first
// violation a reader reports (or write's error). Readers keep reading until write has returned,
// and each reads at least minReads times, so a write that is visible half-done for even a short
// window is seen on almost every seed (measured by TestSeedDependence in kits/broken).
func withReaders[T any](ctx context.Context, c *Case[T], readers, minReads int, write func() error, read func(reader int) error) error {
	var done atomic.Bool
	var once sync.Once
	var first error
	record := func(err error) {
		once.Do(func() { first = err })
	}
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			defer c.Recover()
			for n := 0; ctx.Err() == nil && (!done.Load() || n < minReads); n++ {
				if err := read(r); err != nil {
					record(err)
					return
				}
			}
		}(r)
	}
	werr := func() error {
		defer c.Recover()
		return write()
	}()
	done.Store(true)
	wg.Wait()
	if first != nil {
		return first
	}
	return werr
}
