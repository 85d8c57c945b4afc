// Command foreignfold is a deliberately configurable foreign fold speaking the vectors line
// protocol (docs/vectors.md); see package vectors/internal/foreignfold for its flags.
//
//	go build -o /tmp/foreignfold ./vectors/testdata/foreignfold
//	loom-conform vectors --exec '/tmp/foreignfold -bug bytes-order'
package main

import (
	"os"

	"github.com/loom-kernel/loom-conform/vectors/internal/foreignfold"
)

func main() { os.Exit(foreignfold.Main(os.Args[1:])) }
