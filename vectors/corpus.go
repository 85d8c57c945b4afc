package vectors

import (
	"embed"
)

// corpusFS is the project's vector corpus (vectors/corpus), built into the binary so the runner
// and Checks work from any directory.
//
//go:embed corpus
var corpusFS embed.FS

// CorpusDir is the corpus's path in the repository.
const CorpusDir = "vectors/corpus"

// Embedded returns the project's corpus as built into the binary.
func Embedded() (Corpus, error) {
	return LoadFS(corpusFS, "corpus", "vectors")
}
