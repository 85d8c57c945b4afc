// Package cliverb holds what both binaries of the command line share: the verbs the fast front
// (cmd/loom-conform) serves itself — version, fold and digest — the root command, and the exit
// codes and error forms every verb uses. It links the reference fold and cobra and nothing heavier:
// whatever it imports, every start of loom-conform pays (I-PERF-10). The whole command line is
// cmd/loom-conform-full, which the front runs for every other verb.
package cliverb
