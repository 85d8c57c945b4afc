package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// A build says what it is: a release build its stamp, a build at a tag that tag, anything else
// nextRelease-devel and the commit it came from (issue 38: "devel" when unstamped, honestly).
func TestHarnessVersion(t *testing.T) {
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/loom-kernel/loom-conform", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	devel := nextRelease + "-devel"
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
	} {
		if got := harnessVersion(tc.stamped, tc.bi); got != tc.want {
			t.Errorf("harnessVersion(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if !strings.HasSuffix(toolVersion, "-devel") && !strings.Contains(toolVersion, "-devel+") {
		t.Errorf("toolVersion in a test build = %q, want %s-devel: a test binary is never a release", toolVersion, nextRelease)
	}
}
