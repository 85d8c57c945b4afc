package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/vectors"
)

// ID is the vector id of the finding: fuzz/seed-<seed>.
func (f *Finding) ID() string { return fmt.Sprintf("fuzz/seed-%d", f.Seed) }

// FileName is the name VectorFile is meant to be saved under.
func (f *Finding) FileName() string { return fmt.Sprintf("fuzz-seed-%d.json", f.Seed) }

// VectorFile renders the minimal case as a fold vector (docs/vectors.md §2) whose expectation is
// the reference's answer. reason and clauses are left empty for a person to fill in (the loader
// refuses the file until they are): what the disagreement pins down is a judgement, not a fact the
// fuzzer knows. The fold under test's answer is not part of the file.
func (f *Finding) VectorFile() []byte {
	var b bytes.Buffer
	str := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	fmt.Fprintf(&b, "{\n  \"id\": %s,\n  \"kind\": \"fold\",\n  \"reason\": \"\",\n  \"clauses\": [],\n", str(f.ID()))
	fmt.Fprintf(&b, "  \"profile\": %s,\n", str(f.Minimal.Profile))
	if f.Minimal.Snapshot != nil {
		fmt.Fprintf(&b, "  \"snapshot\": %s,\n", compact(f.Minimal.Snapshot))
	}
	b.WriteString("  \"events\": [")
	for i, e := range f.Minimal.Events {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    %s", compact(e))
	}
	if len(f.Minimal.Events) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n")
	if f.Want.Output != nil {
		fmt.Fprintf(&b, "  \"expect\": {\"state\": %s}\n}\n", *f.Want.Output)
	} else {
		fmt.Fprintf(&b, "  \"expect\": {\"error\": %s}\n}\n", str(f.Want.Error))
	}
	return b.Bytes()
}

// Reproduce is the one-line command that finds this disagreement again.
func (f *Finding) Reproduce(exec string) string {
	return fmt.Sprintf("loom-conform vectors fuzz --exec %s --seed %d --count 1 --profile %s", shq.Quote(exec), f.Seed, f.Profile.Version())
}

// Summary says in two lines what each fold answered for the minimal log.
func (f *Finding) Summary() string {
	return fmt.Sprintf("reference: %s\nunder test: %s", answerText(f.Want), answerText(f.Got))
}

func answerText(r vectors.Response) string {
	if r.Output != nil {
		return "output " + clip(*r.Output, 400)
	}
	if r.Message != "" {
		return "error " + r.Error + " (" + clip(r.Message, 200) + ")"
	}
	return "error " + r.Error
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
