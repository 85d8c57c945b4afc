// Package shard is the one way every long runner (certify, vectors, goldens check, deploysim,
// fitness) splits its work across CI jobs: `--shard i/n` keeps the checks, vectors, goldens, seeds
// or gates whose id hashes to i of n. The partition is stable (FNV-1a 64 of the id, so the same id
// always lands in the same shard whatever else the run holds) and complete (every id is in exactly
// one shard), so n shard reports merge into the report of one whole run.
//
//	s, err := shard.Parse("2/4")
//	if s.Includes(check.ID) { run(check) }
package shard

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// MaxCount bounds n: more shards than this is a typo, not a CI matrix.
const MaxCount = 1024

// Shard is shard Index of Count (1-based). The zero value is the whole run.
type Shard struct {
	Index, Count int
}

// Parse reads "i/n" with 1 ≤ i ≤ n ≤ MaxCount; "" is the whole run.
func Parse(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > MaxCount || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n ≤ %d, e.g. 2/4", s, MaxCount)
	}
	return Shard{Index: i, Count: n}, nil
}

// All reports whether s is the whole run.
func (s Shard) All() bool { return s.Count <= 1 }

// Includes reports whether the item called id belongs to s.
func (s Shard) Includes(id string) bool {
	if s.All() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// String is "i/n", or "" for the whole run.
func (s Shard) String() string {
	if s.All() {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Complete checks that shards are exactly 1/n … n/n of one n, each once: what a merge needs before
// it may call the union a whole run.
func Complete(shards []Shard) error {
	if len(shards) == 0 {
		return fmt.Errorf("no shards to merge")
	}
	n := shards[0].Count
	seen := map[int]bool{}
	for _, s := range shards {
		switch {
		case s.All():
			return fmt.Errorf("a whole run is not a shard: merge only --shard reports")
		case s.Count != n:
			return fmt.Errorf("shard %s does not belong to a split into %d", s, n)
		case seen[s.Index]:
			return fmt.Errorf("shard %s appears twice", s)
		}
		seen[s.Index] = true
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seen[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shards missing: %s (a merge of some shards is not a whole run)", strings.Join(missing, ", "))
	}
	return nil
}

// Seen records the items the reports of a merge have claimed, by key.
type Seen map[string]bool

// Claim records that shard s reported the item id (a kind such as "vector") under key: an error
// when the item does not belong to s or an earlier shard already reported it.
func (seen Seen) Claim(s Shard, kind, id, key string) error {
	switch {
	case !s.Includes(id):
		return fmt.Errorf("%s %s does not belong to shard %s", kind, id, s)
	case seen[key]:
		return fmt.Errorf("%s %s is in two shards", kind, id)
	}
	seen[key] = true
	return nil
}
