package kits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/loom-kernel/loom-conform/internal/jsondiff"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

func csPutGet(ctx context.Context, c *ContentStoreCase) error {
	binary := append(unique(c, "bin", 300, c.Rand), 0, 0xff, 0xfe, '\n', 0, 0xc3)
	for _, data := range [][]byte{unique(c, "small", 10, c.Rand), binary, unique(c, "big", 1<<20, c.Rand), {}} {
		ref, err := c.Store.Put(ctx, data)
		if err != nil {
			return c.Failf("Put", fmt.Sprintf("%d bytes", len(data)), err, "nil")
		}
		if want := spi.RefOf(data); ref != want {
			return c.Failf("Put", fmt.Sprintf("%d bytes", len(data)), ref, want)
		}
		if err := csGet(ctx, c, data, "Put"); err != nil {
			return err
		}
	}
	return nil
}

func csIdempotent(ctx context.Context, c *ContentStoreCase) error {
	data := unique(c, "twice", 4096, c.Rand)
	want := spi.RefOf(data)
	for i := 0; i < 2; i++ {
		ref, err := c.Store.Put(ctx, bytes.Clone(data))
		if err != nil || ref != want {
			return c.Failf("Put", fmt.Sprintf("%d bytes, time %d", len(data), i+1), refOrErr(ref, err), want)
		}
	}
	// putRaceRounds rounds of six racing writers of new bytes each: a put that looks the digest up
	// and then inserts over one round trip (a natural window) is refused on one round in a few, so
	// eight rounds reject it on at least 99 % of seeds (docs/performance.md).
	var races [][]byte
	for r := 0; r < putRaceRounds; r++ {
		c.Progress(r, putRaceRounds)
		race := unique(c, fmt.Sprintf("race-%d", r), 8192, c.Rand)
		if err := csPutRace(ctx, c, race); err != nil {
			return err
		}
		races = append(races, race)
	}
	if err := csGet(ctx, c, data, "two puts"); err != nil {
		return err
	}
	for _, race := range races {
		if err := csGet(ctx, c, race, "racing puts"); err != nil {
			return err
		}
	}
	return nil
}

// putRaceRounds is how many races of six writers csIdempotent runs.
const putRaceRounds = 8

// csPutRace puts race with six racing writers, half through put and half through putStream; each
// must return race's ref.
func csPutRace(ctx context.Context, c *ContentStoreCase, race []byte) error {
	wantRace := spi.RefOf(race)
	const n = 6
	errs := make([]error, n)
	refs := make([]spi.ContentRef, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer c.Recover()
			<-gate
			if i%2 == 0 {
				refs[i], errs[i] = c.Store.Put(ctx, bytes.Clone(race))
			} else {
				refs[i], errs[i] = c.Store.PutStream(ctx, &chunkReader{data: race, sizes: []int{1000, 7}})
			}
		}(i)
	}
	close(gate)
	wg.Wait()
	for i := range errs {
		if errs[i] != nil || refs[i] != wantRace {
			return c.Failf("Put", fmt.Sprintf("%d bytes, %d racing writers (put and putStream)", len(race), n), refOrErr(refs[i], errs[i]), wantRace)
		}
	}
	return nil
}

func csGetUnknown(ctx context.Context, c *ContentStoreCase) error {
	return csAbsent(ctx, c, unique(c, "never", 64, c.Rand), "bytes never put")
}

// csGetMalformed: get of a malformed digest is an invalid argument, not not-found (I-PLUGIN-17).
func csGetMalformed(ctx context.Context, c *ContentStoreCase) error {
	good := spi.DigestOf([]byte("x"))
	for _, bad := range []string{"", "sha256:", "sha256:abc", "md5:" + good[7:39], "SHA256:" + good[7:], "sha256:" + good[7:70] + "G",
		"sha256:" + string(bytes.ToUpper([]byte(good[7:]))), good + "00", "../" + good} {
		got, err := c.Store.Get(ctx, bad)
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Get", fmt.Sprintf("%q", bad), gotOf(got, err), "an invalid-argument error")
		}
	}
	return nil
}

// jsonSpellings are byte-different spellings of one JSON value.
var jsonSpellings = []string{
	`{"a":1,"b":[true,null,"x"],"n":12345678901234567890}`,
	`{"b":[true,null,"x"],"a":1,"n":12345678901234567890}`,
	`{ "a" : 1.0, "b" : [ true, null, "\u0078" ], "n" : 1.234567890123456789e19 }`,
	"{\n  \"a\": 10e-1,\n  \"b\": [true, null, \"x\"],\n  \"n\": 12345678901234567890\n}\n",
}

func csJSONContentBytes(ctx context.Context, c *ContentStoreCase) error {
	tag := fmt.Sprintf(`{"case":%q,"v":`, c.ExecID("json"))
	seen := map[string]int{}
	for i, s := range jsonSpellings {
		data := []byte(tag + s + "}")
		ref, err := c.Store.Put(ctx, data)
		if err != nil {
			return c.Failf("Put", fmt.Sprintf("JSON spelling %d (%s)", i+1, clipS(string(data))), err, "nil")
		}
		if want := spi.RefOf(data); ref != want {
			return c.Failf("Put", fmt.Sprintf("JSON spelling %d (%s)", i+1, clipS(string(data))), ref, jsondiff.Compact(want, 0)+" (the digest of the bytes)")
		}
		if j, dup := seen[ref.Digest]; dup {
			return c.Failf("Put", fmt.Sprintf("JSON spellings %d and %d of one value", j+1, i+1), "one digest", "two digests")
		}
		seen[ref.Digest] = i
	}
	for i, s := range jsonSpellings {
		if err := csGet(ctx, c, []byte(tag+s+"}"), fmt.Sprintf("puts of %d spellings of one JSON value, this one number %d", len(jsonSpellings), i+1)); err != nil {
			return err
		}
	}
	return nil
}

// csRefusalOrder: a malformed digest is an invalid argument whoever asks for it, an owner that
// stored nothing included, never not found (I-STORE-56).
func csRefusalOrder(ctx context.Context, c *ContentStoreCase) error {
	bad := "sha256:" + strings.Repeat("G", 64)
	_, err := c.Store.Get(ctx, bad)
	if e := expectErr(c, "Get", fmt.Sprintf("%q) with (a malformed digest, never stored", bad), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	if !spi.Has(manifest.SeamContentStore, c.Store, spi.MethodOwner) {
		return nil
	}
	_, err = c.Store.(spi.OwnedContentStore).GetFor(ctx, spi.ContentAccess{Owner: c.ExecID("nobody")}, bad)
	return expectErr(c, "GetFor", fmt.Sprintf("an owner that stored nothing, %q) with (a malformed digest", bad), err, spi.ErrInvalidArgument)
}
