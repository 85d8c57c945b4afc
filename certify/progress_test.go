package certify

import (
	"strings"
	"testing"
	"unicode/utf8"

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

// The progress line keeps the part of a long first line that names the wrong member, wherever it
// is, and never cuts a character in two.
func TestProgressNoteKeepsTheField(t *testing.T) {
	long := "the bridge broke the protocol during the check: eventStore.read result does not match its schema: jsonschema validation failed with 'file:///schemas/eventStore.read.result.json#' - at '/0/metadata': got null, want object"
	got := progressNote(CheckResult{Verdict: kits.Fail, Message: long + "\neventstore/roundtrip-values [I-STORE-3]: …"})
	if !strings.Contains(got, "at '/0/metadata': got null, want object") || !strings.HasSuffix(got, " …") || len(got) > 240 {
		t.Errorf("progressNote = %q, want the start, the member the schema names, and a mark that more follows", got)
	}
	short := progressNote(CheckResult{Verdict: kits.Fail, Message: "x [I-1]: Op() = a, want b"})
	if short != ": x [I-1]: Op() = a, want b" {
		t.Errorf("progressNote(short) = %q", short)
	}
	wide := progressNote(CheckResult{Verdict: kits.Fail, Message: strings.Repeat("é", 120)})
	if !utf8.ValidString(wide) {
		t.Errorf("progressNote cut a character: %q", wide)
	}
}

// Reference: I-NET-8 — a target's message on a progress line is shown, never obeyed.
func TestProgressNoteEscapesTargetText(t *testing.T) {
	note := progressNote(CheckResult{Verdict: kits.Fail, Message: "bridge said \x1b[2J\x1b]0;pwned\x07"})
	if note != `: bridge said \x1b[2J\x1b]0;pwned\x07` {
		t.Errorf("progressNote = %q, want the escapes shown", note)
	}
}
