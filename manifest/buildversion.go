package manifest

import (
	"runtime/debug"
	"strings"
)

// ModulePath is this harness's Go module.
const ModulePath = "github.com/loom-kernel/loom-conform"

// tagged reports whether v is a module version a tag names: v1.2.3, or v1.2.3-rc.1 (a
// pre-release of letters, digits, dots and dashes). Read by hand, not by a pattern: every command
// computes its version at start (I-PERF-10).
func tagged(v string) bool {
	rest, ok := strings.CutPrefix(v, "v")
	for i := range 3 {
		n := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if !ok || n == 0 {
			return false
		}
		rest = rest[n:]
		if i < 2 {
			rest, ok = strings.CutPrefix(rest, ".")
		}
	}
	if rest == "" {
		return true
	}
	pre, ok := strings.CutPrefix(rest, "-")
	return ok && pre != "" && strings.Trim(pre, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.-") == ""
}

// pseudo reports whether v ends as a version Go derives from a commit does
// (v0.0.0-20260101120000-abcdef123456): fourteen digits, a dash, twelve lower-case hex digits.
func pseudo(v string) bool {
	if len(v) < 27 {
		return false
	}
	t := v[len(v)-27:]
	return t[14] == '-' && strings.Trim(t[:14], "0123456789") == "" && strings.Trim(t[15:], "0123456789abcdef") == ""
}

// BuildVersion is the version this build of the harness reports, on the command line and on the
// Go route alike: stamped, the linker's stamp of a release build, when given; else the tag the
// module was built at (`go install …@v0.1.0`, a clean checkout of the tag, or a program that
// depends on the module at a tag); else HarnessVersion-devel, plus the commit (and ".dirty" for
// uncommitted changes) the toolchain recorded when this module is the program's own. The leading
// "v" of a tag is dropped: 0.1.0, as every report writes it.
func BuildVersion(stamped string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return VersionOf(stamped, bi)
}

// VersionOf is BuildVersion for the given build information (nil when there is none).
func VersionOf(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return strings.TrimPrefix(stamped, "v")
	}
	own := bi != nil && (bi.Main.Path == ModulePath || bi.Main.Path == "")
	var mod *debug.Module
	switch {
	case bi == nil:
	case own:
		mod = &bi.Main
	default:
		for _, d := range bi.Deps {
			if d.Path == ModulePath {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
			}
		}
	}
	if mod != nil && tagged(mod.Version) && !pseudo(mod.Version) {
		return strings.TrimPrefix(mod.Version, "v")
	}
	v := HarnessVersion + "-devel"
	if !own {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += "+" + rev[:min(12, len(rev))]
		if modified == "true" {
			v += ".dirty"
		}
	}
	return v
}
