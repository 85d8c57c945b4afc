package goldens

import (
	"embed"
	"io/fs"
)

//go:embed corpus/*/flow.json corpus/*/driver.json
var corpusScripts embed.FS

// CorpusScripts returns the corpus's flow scripts and drivers as files
// (corpus/<name>/flow.json and driver.json), built into the binary: what a client that re-drives
// the scripts elsewhere (the wire kernel ABI's `certify kernel`) needs without the repository.
func CorpusScripts() fs.FS { return corpusScripts }
