package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// HarnessVersion is the loom-conform release this source heads for, not a kernel contract version:
// a release build says it (a build that is not a release adds "-devel" and the commit it was built
// from, buildversion), every report and certificate names it as its harness, on the command line
// and on the Go route alike, and the reference kernel states it for its implementation in
// wire.handshake (serve-kernel and the recorded exchanges of docs/wire.md alike).
// scripts/release.sh refuses a tag it does not match.
const HarnessVersion = "0.1.0"

// Version is a parsed MAJOR.MINOR.PATCH semantic version.
type Version struct{ Major, Minor, Patch int }

// ParseVersion parses "MAJOR.MINOR.PATCH" (a leading "v" is accepted). Anything else is an error
// that names the input.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(t, "-+"); i >= 0 {
		return Version{}, fmt.Errorf("version %q: pre-release and build suffixes (%q) are not contract versions: want MAJOR.MINOR.PATCH", s, t[i:])
	}
	parts := strings.Split(t, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" || (len(p) > 1 && p[0] == '0') || strings.ContainsAny(p, "+-") {
			return Version{}, fmt.Errorf("version %q: component %q is not a non-negative integer", s, p)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v precedes w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

func equalFold(a, b string) bool { return strings.EqualFold(a, b) }
