package manifest

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// A build says what it is: a release build its stamp, a build at a tag that tag, anything else
// HarnessVersion-devel and the commit it came from ("devel" when unstamped, honestly); a program
// that uses the kits or certify as a library reports the module version it depends on.
func TestBuildVersion(t *testing.T) {
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/loom-kernel/loom-conform", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	devel := HarnessVersion + "-devel"
	for _, tc := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"release build (-ldflags -X main.version=0.3.1)", "0.3.1", info("(devel)"), "0.3.1"},
		{"release build stamped with the tag", "v0.3.1", nil, "0.3.1"},
		{"go install …@v0.2.0", "", info("v0.2.0"), "0.2.0"},
		{"go install …@v1.0.0-rc.1", "", info("v1.0.0-rc.1"), "1.0.0-rc.1"},
		{"go test (no build information of the module)", "", info("(devel)"), devel},
		{"no build information", "", nil, devel},
		{"go build in a clean checkout past the tag", "", info("v0.1.1-0.20260101120000-abcdef123456",
			"vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.modified", "false"), devel + "+abcdef123456"},
		{"go build with uncommitted changes", "", info("v0.0.0-20260101120000-abcdef123456+dirty",
			"vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.modified", "true"), devel + "+abcdef123456.dirty"},
		{"go install …@commit", "", info("v0.0.0-20260101120000-abcdef123456"), devel},
		{"a Go program depending on the module at a tag", "", dep("v0.2.0", ""), "0.2.0"},
		{"a Go program depending on a commit of the module", "", dep("v0.0.0-20260101120000-abcdef123456", ""), devel},
		{"a Go program replacing the module with a tagged fork", "", dep("v0.2.0", "v0.2.1"), "0.2.1"},
	} {
		if got := VersionOf(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("VersionOf(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if v := BuildVersion(""); !strings.HasSuffix(v, "-devel") && !strings.Contains(v, "-devel+") {
		t.Errorf("BuildVersion in a test build = %q, want %s-devel: a test binary is never a release", v, HarnessVersion)
	}
}

// dep is the build information of a program (not this module) that depends on the module at
// version, replaced by replace when it is not "".
func dep(version, replace string) *debug.BuildInfo {
	d := &debug.Module{Path: ModulePath, Version: version}
	if replace != "" {
		d.Replace = &debug.Module{Path: ModulePath, Version: replace}
	}
	return &debug.BuildInfo{Main: debug.Module{Path: "example.com/my-store", Version: "(devel)"}, Deps: []*debug.Module{d}}
}

// The hand-read version forms agree with the patterns they replace, on tags, pre-releases,
// pseudo-versions and near misses.
func TestVersionFormsAgreeWithPatterns(t *testing.T) {
	tag := regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	pseu := regexp.MustCompile(`[0-9]{14}-[0-9a-f]{12}$`)
	for _, v := range []string{
		"v1.2.3", "v0.1.0", "v10.20.30", "v1.2.3-rc.1", "v1.2.3-rc-1.x", "v1.2.3-", "v1.2", "1.2.3", "v1.2.3.4",
		"v1..3", "v1.2.3+meta", "v1.2.3-rc_1", "v", "", "vx.y.z", "v1.2.3-é",
		"v0.0.0-20260101120000-abcdef123456", "v1.2.4-0.20260101120000-abcdef123456", "v0.0.0-2026010112000-abcdef123456",
		"v0.0.0-20260101120000-ABCDEF123456", "v0.0.0-20260101120000-abcdef12345", "20260101120000-abcdef123456", "x20260101120000_abcdef123456",
	} {
		if got, want := tagged(v), tag.MatchString(v); got != want {
			t.Errorf("tagged(%q) = %v, want %v", v, got, want)
		}
		if got, want := pseudo(v), pseu.MatchString(v); got != want {
			t.Errorf("pseudo(%q) = %v, want %v", v, got, want)
		}
	}
}
