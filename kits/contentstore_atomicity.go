package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func csReadersWholeContent(ctx context.Context, c *ContentStoreCase) error {
	// Eight contents, each put twice: first new, then again while it is stored (a store that
	// rewrites stored content on a repeated put shows it torn to readers that already had it).
	// Put and putStream alternate over both. Sized for a content written in two parts one round
	// trip apart behind the store bridge on a loaded machine: with four contents and two readers
	// it was missed on 7 seeds in 100 there (docs/performance.md).
	const rounds, readers, size = 16, 3, 64<<10 + 4093
	contents := make([][]byte, rounds/2)
	for i := range contents {
		contents[i] = unique(c, fmt.Sprintf("whole-%d", i), size, c.Rand)
	}
	how := func(i int) string {
		op := []string{"Put", "PutStream", "PutStream", "Put"}[i%4]
		if i%2 == 1 {
			return op + " of stored content"
		}
		return op
	}
	seenWhole := make([][readers]bool, rounds) // per round and reader: it has read the content whole
	return readersRace(ctx, c, readers, rounds, func(ctx context.Context, i int) error {
		data := contents[i/2]
		var ref spi.ContentRef
		var err error
		if strings.HasPrefix(how(i), "PutStream") {
			ref, err = c.Store.PutStream(ctx, &chunkReader{data: data, sizes: []int{65536, 4093}})
		} else {
			ref, err = c.Store.Put(ctx, data)
		}
		if err != nil || ref != spi.RefOf(data) {
			return c.Failf(strings.Fields(how(i))[0], fmt.Sprintf("%d bytes", len(data)), refOrErr(ref, err), spi.RefOf(data))
		}
		return nil
	}, func(r, i int, after bool) error {
		data := contents[i/2]
		dg := spi.DigestOf(data)
		got, err := c.Store.Get(ctx, dg)
		whole := seenWhole[i][r]
		switch {
		case err == nil && bytes.Equal(got, data):
			seenWhole[i][r] = true
		case err == nil:
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s of %d bytes (", short(dg), how(i), len(data)), fmt.Sprintf("%d bytes (first difference at %d)", len(got), firstDiff(got, data)), "not found or the whole content")
		case errors.Is(err, spi.ErrNotFound) && after:
			return c.Failf("Get", fmt.Sprintf("%s) after a %s returned (", short(dg), how(i)), err, "the whole content")
		case errors.Is(err, spi.ErrNotFound) && whole:
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s, after this reader had read it whole (", short(dg), how(i)), err, "the whole content")
		case !errors.Is(err, spi.ErrNotFound):
			return c.Failf("Get", fmt.Sprintf("%s) racing a %s (", short(dg), how(i)), err, "not found or the whole content")
		}
		return nil
	})
}
