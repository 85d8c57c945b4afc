package shard

import "testing"

// A merge accepts an item once, from the shard it belongs to.
func TestSeenClaim(t *testing.T) {
	seen := Seen{}
	var own Shard
	for i := 1; i <= 2; i++ {
		s := Shard{Index: i, Count: 2}
		if s.Includes("a") {
			own = s
		}
	}
	other := Shard{Index: 3 - own.Index, Count: 2}
	if err := seen.Claim(other, "vector", "a", "a"); err == nil || err.Error() != "vector a does not belong to shard "+other.String() {
		t.Errorf("shard/claim [I-SHARD-1]: Claim(%s, a) = %v, want does not belong", other, err)
	}
	if err := seen.Claim(own, "vector", "a", "a"); err != nil {
		t.Errorf("shard/claim [I-SHARD-1]: Claim(%s, a) = %v, want nil", own, err)
	}
	if err := seen.Claim(own, "vector", "a", "a"); err == nil || err.Error() != "vector a is in two shards" {
		t.Errorf("shard/claim [I-SHARD-1]: second Claim(%s, a) = %v, want is in two shards", own, err)
	}
}
