package manifest

import (
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// ModulePath is this harness's Go module.
const ModulePath = "github.com/loom-kernel/loom-conform"

// versionForms are a module version a tag names (v1.2.3, v1.2.3-rc.1) and the tail of one Go
// derives from a commit (v0.0.0-20260101120000-abcdef123456), compiled on first use.
var versionForms = sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
	return regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`), regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}$`)
})

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
	tagged, pseudo := versionForms()
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
	if mod != nil && tagged.MatchString(mod.Version) && !pseudo.MatchString(mod.Version) {
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
