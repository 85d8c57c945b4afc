package certify

import (
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
)

// The progress prefix keeps one width from the first check to the last.
func TestProgressPrefixWidth(t *testing.T) {
	first := progressPrefix(1, 330, map[kits.Verdict]int{kits.Pass: 1})
	last := progressPrefix(330, 330, map[kits.Verdict]int{kits.Pass: 300, kits.Fail: 20, kits.Skip: 9, kits.Unknown: 1})
	if len(first) != len(last) || first != "[  1/330 p  1 f  0 s  0 u  0]" {
		t.Errorf("progressPrefix = %q and %q, want one width", first, last)
	}
}

// Reference: I-NET-8 — a target's message on a progress line is shown, never obeyed.
func TestProgressNoteEscapesTargetText(t *testing.T) {
	note := progressNote(CheckResult{Verdict: kits.Fail, Message: "bridge said \x1b[2J\x1b]0;pwned\x07"})
	if note != `: bridge said \x1b[2J\x1b]0;pwned\x07` {
		t.Errorf("progressNote = %q, want the escapes shown", note)
	}
}
