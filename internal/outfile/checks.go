package outfile

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the writer.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "outfile/whole-or-nothing", Kind: spec.KindTest, Clauses: []string{"I-CERT-40"}, Where: "internal/outfile:TestWrittenWholeOrNotAtAll"},
		{ID: "outfile/refused-before-the-run", Kind: spec.KindTest, Clauses: []string{"I-CERT-40"}, Where: "internal/outfile:TestCheckRefusesWhatCannotBeWrittenWhole"},
		{ID: "outfile/streams-and-late-links", Kind: spec.KindTest, Clauses: []string{"I-CERT-40"}, Where: "internal/outfile:TestWriteStreamsAndLinksMadeLater"},
	}
}
