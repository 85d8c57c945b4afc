package main

import "github.com/loom-kernel/loom-conform/internal/reportview"

// ofThisHarness marks a page as written by this harness version: its clause links point into the
// docs of this version (reportview.DocsBase), not into whatever main says later.
func ofThisHarness(p reportview.Page) reportview.Page {
	p.Version = toolVersion
	return p
}
