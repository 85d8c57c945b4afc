#!/usr/bin/env bash
# Builds the release set of loom-conform (docs/releasing.md).
#
#   scripts/release.sh VERSION              a release: refuses unless the checkout is clean, HEAD is
#                                           tagged vVERSION, CHANGELOG.md has a "## VERSION" section
#                                           and the source heads for VERSION (manifest.HarnessVersion); then builds
#   scripts/release.sh --snapshot VERSION   builds without those checks (a dry run; what the tests do)
#
# Into DIST (default dist/VERSION): loom-conform_VERSION_OS_ARCH and loom-conform-full_VERSION_OS_ARCH
# (the fast front and the whole command line it runs from beside it), with .exe on Windows, for linux,
# darwin and windows on amd64 and arm64 -- static (CGO_ENABLED=0), -trimpath, the version stamped
# with -ldflags -X main.version=VERSION -- and SHA256SUMS over them (check with sha256sum -c).
# PLATFORMS="linux/amd64 windows/arm64" narrows the set; GOBUILDFLAGS replaces -trimpath (the tests
# set it empty to share their build cache). IMAGE=1 also builds the FROM scratch image
# loom-conform:VERSION (Dockerfile) from the linux binaries of this machine's architecture; nothing
# is pulled.
set -euo pipefail
die() { echo "release: $*" >&2; exit 2; }

snapshot=false
if [ "${1:-}" = "--snapshot" ]; then snapshot=true; shift; fi
[ $# -eq 1 ] || die "usage: scripts/release.sh [--snapshot] VERSION   (VERSION: 0.1.0 or v0.1.0)"
version=${1#v}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "version $1: want MAJOR.MINOR.PATCH, optionally -PRERELEASE"
cd "$(dirname "$0")/.."

if ! $snapshot; then
  [ -z "$(git status --porcelain)" ] || die "the checkout has uncommitted changes: a release is built from the tagged commit only"
  git tag --points-at HEAD | grep -qx "v$version" || die "HEAD is not tagged v$version: git tag -a v$version -m 'loom-conform $version' first"
  grep -q "^## ${version//./\\.}\( \|$\)" CHANGELOG.md || die "CHANGELOG.md has no '## $version' section: move the Unreleased entries under it"
  next=$(sed -n 's/^const HarnessVersion = "\(.*\)"$/\1/p' manifest/version.go)
  [ "$next" = "$version" ] || die "manifest/version.go heads for $next, not $version: set HarnessVersion to $version first"
fi

dist=${DIST:-dist/$version}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}
rm -rf "$dist"
mkdir -p "$dist"
for p in $platforms; do
  os=${p%/*} arch=${p#*/}
  for cmd in loom-conform loom-conform-full; do
    name="${cmd}_${version}_${os}_${arch}"
    if [ "$os" = windows ]; then name+=.exe; fi
    echo "release: building $name" >&2
    # shellcheck disable=SC2086 # GOBUILDFLAGS is a list of flags
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build ${GOBUILDFLAGS--trimpath} -buildvcs=false \
      -ldflags "-s -w -X main.version=$version" -o "$dist/$name" "./cmd/$cmd"
  done
done

(
  cd "$dist"
  if command -v sha256sum >/dev/null; then sha256sum loom-conform_* loom-conform-full_* > SHA256SUMS
  else shasum -a 256 loom-conform_* loom-conform-full_* > SHA256SUMS; fi
)
echo "release: $dist/SHA256SUMS" >&2

if [ "${IMAGE:-}" = 1 ]; then
  arch=$(go env GOARCH)
  [ -f "$dist/loom-conform_${version}_linux_${arch}" ] || die "IMAGE=1 needs the linux/$arch binaries: add it to PLATFORMS"
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' EXIT
  for cmd in loom-conform loom-conform-full; do cp "$dist/${cmd}_${version}_linux_${arch}" "$ctx/$cmd"; done
  echo "release: building the image loom-conform:$version" >&2
  # BuildKit where buildx is installed, else the classic builder (both build FROM scratch offline).
  docker buildx version >/dev/null 2>&1 || export DOCKER_BUILDKIT=0
  docker build -q --build-arg "VERSION=$version" \
    -t "loom-conform:$version" -f Dockerfile "$ctx" >&2
fi
