package tailbuf

import "testing"

func TestKeepsOnlyTheTail(t *testing.T) {
	b := New(5)
	for _, s := range []string{"abc", "defg", "h"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := b.String(); got != "defgh" {
		t.Fatalf("String() = %q, want the last 5 bytes %q", got, "defgh")
	}
	if got := b.Take(); got != "defgh" || b.String() != "" {
		t.Fatalf("Take() = %q then String() = %q, want %q then empty", got, b.String(), "defgh")
	}
}
