package main

import "github.com/loom-kernel/loom-conform/manifest"

// version is set only by the linker, in a release build (scripts/release.sh):
//
//	go build -ldflags "-X main.version=0.1.0" ./cmd/loom-conform ./cmd/loom-conform-full
var version string

// toolVersion is this harness's own version (not a kernel contract version), resolved once at
// start from the linker stamp or the build information (manifest.BuildVersion), and never changed.
var toolVersion = manifest.BuildVersion(version)
