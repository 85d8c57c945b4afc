package shq

import (
	"os/exec"
	"testing"
)

// Every quoted word comes back unchanged through a real shell.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	words := []string{"plain", "", "with space", "it's", `a"b`, "$HOME", "x;rm -rf /", "*", "^a$", "tab\there", "new\nline", "(x)", "`id`", "a\\b", "ünï", "--run=^x|y$"}
	for _, w := range words {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if string(out) != w {
			t.Errorf("sh printf %s = %q, want %q", Quote(w), out, w)
		}
	}
	if got := Join("/opt/my tools/loom-conform", "certify", "--run", "^a$"); got != `'/opt/my tools/loom-conform' certify --run '^a$'` {
		t.Errorf("Join = %s", got)
	}
}
