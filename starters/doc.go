// Package starters holds the starter store bridges and the test that certifies them.
//
// The bridges are not Go: starters/python/loom_bridge.py (Python standard library) and
// starters/node/loom-bridge.js (Node.js standard library) each serve every seam of the store
// bridge protocol (docs/bridge.md) from memory, and are written to be copied as the start of a
// real adapter (docs/adapting.md). Started with no arguments, each listens on a free loopback
// port and prints its URL as the first line of standard output, so
//
//	loom-conform certify all --exec 'python3 starters/python/loom_bridge.py'
//	loom-conform certify all --exec 'node starters/node/loom-bridge.js'
//
// just work. The tests here run exactly that (certify.Run with an ExecTarget, every store kind,
// and the dispatcher) and require a plain certificate under --strict with no check skipped;
// with CI=true a missing python3 or node fails them rather than skips. The SQLite EventStore that
// docs/adapting.md builds from the Python starter is certified too, taken from the page itself.
package starters
