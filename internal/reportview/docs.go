package reportview

import (
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// Repository is where the project, and with it docs/, is published.
const Repository = "https://github.com/loom-kernel/loom-conform"

// DocsBase is the docs/ directory of the harness that writes a page, version its version: the
// text a clause link lands on is the text the checks were built from, never whatever main says
// later. See DocsRef.
func DocsBase(version string) string {
	return Repository + "/blob/" + DocsRef(version, buildRevision()) + "/docs/"
}

// DocsRef is the git ref of the harness's docs: revision, the commit the binary was built from,
// when the build recorded one from a clean tree; else the release tag of version (v1.2.3); else
// main (a development build that knows neither).
func DocsRef(version, revision string) string {
	switch {
	case revision != "":
		return revision
	case release().MatchString(version):
		return "v" + strings.TrimPrefix(version, "v")
	}
	return "main"
}

// release is a semantic version, as a tag names it (with or without its "v").
var release = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`) })

// buildRevision is the commit this binary was built from, "" when the build did not record one
// or its tree had changes the commit does not hold.
func buildRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		return ""
	}
	return rev
}
