package shard

import (
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "1/0", "a/b", "2", "1/2000", "-1/4", "1/4/2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = nil error, want one", bad)
		}
	}
	s, err := Parse("2/4")
	if err != nil || s != (Shard{2, 4}) || s.String() != "2/4" {
		t.Errorf("Parse(2/4) = %+v, %v", s, err)
	}
	if s, err := Parse(""); err != nil || !s.All() || !s.Includes("x") {
		t.Errorf("Parse(\"\") = %+v, %v; want the whole run", s, err)
	}
}

// Every id lands in exactly one shard, the same one every time, and the shards are not lopsided.
func TestPartitionIsCompleteAndStable(t *testing.T) {
	const n = 4
	counts := make([]int, n)
	for k := range 4000 {
		id := fmt.Sprintf("eventstore/check-%d", k)
		in := 0
		for i := 1; i <= n; i++ {
			if (Shard{i, n}).Includes(id) {
				in++
				counts[i-1]++
				if !(Shard{i, n}).Includes(id) {
					t.Fatalf("Includes(%s) is not stable", id)
				}
			}
		}
		if in != 1 {
			t.Fatalf("id %s is in %d shards of %d, want exactly 1", id, in, n)
		}
	}
	for i, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d/%d holds %d of 4000 ids, want about 1000", i+1, n, c)
		}
	}
}

func TestComplete(t *testing.T) {
	if err := Complete([]Shard{{1, 3}, {3, 3}, {2, 3}}); err != nil {
		t.Errorf("Complete(1/3, 3/3, 2/3) = %v, want nil", err)
	}
	for _, bad := range [][]Shard{{{1, 3}, {2, 3}}, {{1, 2}, {1, 2}, {2, 2}}, {{1, 2}, {2, 3}}, {{}}, nil} {
		if err := Complete(bad); err == nil {
			t.Errorf("Complete(%v) = nil, want an error", bad)
		}
	}
}
