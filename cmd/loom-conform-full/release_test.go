package main

import (
	"bufio"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/testenv"
)

// releasePlatforms are the platforms a release ships (scripts/release.sh).
var releasePlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// The release path (docs/releasing.md): scripts/release.sh --snapshot builds a pair of static
// binaries per platform, named loom-conform_VERSION_OS_ARCH and loom-conform-full_VERSION_OS_ARCH
// (.exe on Windows), the version stamped into each,
// and SHA256SUMS over them; IMAGE=1 builds the FROM scratch image of the CLI from the linux one,
// which then runs the main job. By default the test builds this machine's platform, without
// -trimpath so the build shares the test build's cache (seconds, not minutes);
// LOOM_CONFORM_RELEASE_ALL=1 builds all six as a release does. The image part needs Docker (with
// CI=true its absence fails the test). Reference: issue 38 ("a release path a real Go tool has").
func TestReleaseSet(t *testing.T) {
	bash := testenv.LookPath(t, "bash", "install bash to run scripts/release.sh")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	version := fmt.Sprintf("0.0.0-test.%d", os.Getpid()) // also the image tag: one per test run
	platforms := []string{"linux/" + runtime.GOARCH}
	env := []string{"GOBUILDFLAGS="}
	if os.Getenv("LOOM_CONFORM_RELEASE_ALL") == "1" {
		platforms, env = releasePlatforms, nil
	}
	dist := t.TempDir()
	release := func(extra ...string) {
		t.Helper()
		cmd := exec.Command(bash, "scripts/release.sh", "--snapshot", version)
		cmd.Dir = root
		cmd.Env = append(append(os.Environ(), "DIST="+dist, "PLATFORMS="+strings.Join(platforms, " ")), append(env, extra...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("scripts/release.sh --snapshot %s: %v\n%s", version, err, out)
		}
	}
	release()

	var want []string
	for _, p := range platforms {
		for _, cmd := range []string{"loom-conform", "loom-conform-full"} {
			want = append(want, checkReleased(t, dist, version, cmd, p))
		}
	}
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if w := append(slices.Clone(want), "SHA256SUMS"); !slices.Equal(got, slices.Sorted(slices.Values(w))) {
		t.Errorf("release set = %v, want %v", got, w)
	}
	sums := readSums(t, filepath.Join(dist, "SHA256SUMS"))
	if names := slices.Sorted(maps.Keys(sums)); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Errorf("SHA256SUMS names %v, want every binary once: %v", names, want)
	}
	for name, sum := range sums {
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			continue
		}
		if h := sha256.Sum256(data); hex.EncodeToString(h[:]) != sum {
			t.Errorf("SHA256SUMS: %s %s, want %x", name, sum, h)
		}
	}

	t.Run("image", func(t *testing.T) {
		certifytest.RequireDocker(t)
		docker := testenv.LookPath(t, "docker", "install the Docker CLI to build the release image")
		image := "loom-conform:" + version
		release("IMAGE=1")
		t.Cleanup(func() { _ = exec.Command(docker, "rmi", "-f", image).Run() })
		out, err := exec.Command(docker, "run", "--rm", image, "version").Output()
		if wantLine := "loom-conform " + version + " (kernel ABI"; err != nil || !strings.HasPrefix(string(out), wantLine) {
			t.Errorf("docker run %s version = %q, %v; want %q…", image, out, err, wantLine)
		}
		// The main job runs in the image (the embedded SQLite store needs its temporary directory).
		cmd := exec.Command(docker, "run", "--rm", image, "certify", "eventstore", "--builtin", "sqlite", "--run", "^eventstore/append-conflict$", "--accept", "partial")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("docker run %s certify eventstore --builtin sqlite (one check) = %v, want exit 0\n%s", image, err, out)
		}
	})
}

// readSums reads a sha256sum file: "HEX  NAME" (or "HEX *NAME") per line.
func readSums(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*")
		if !ok || len(sum) != 64 || name == "" {
			t.Errorf("SHA256SUMS: line %q, want HEX  NAME", sc.Text())
			continue
		}
		if _, dup := sums[name]; dup {
			t.Errorf("SHA256SUMS names %s twice", name)
		}
		sums[name] = sum
	}
	return sums
}

// checkReleased checks the release's binary of cmd for platform p (GOOS/GOARCH) in dist: built for
// it, static, stamped; on this machine's platform it runs, and the front runs a verb it hands to
// the full binary beside it under the release's names. It returns the binary's file name.
func checkReleased(t *testing.T, dist, version, cmd, p string) string {
	t.Helper()
	goos, goarch, _ := strings.Cut(p, "/")
	name := fmt.Sprintf("%s_%s_%s_%s", cmd, version, goos, goarch)
	if goos == "windows" {
		name += ".exe"
	}
	file := filepath.Join(dist, name)
	info, err := buildinfo.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return name
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["GOOS"] != goos || settings["GOARCH"] != goarch || settings["CGO_ENABLED"] != "0" {
		t.Errorf("%s: built for GOOS=%s GOARCH=%s CGO_ENABLED=%s, want %s/%s static (CGO_ENABLED=0)", name, settings["GOOS"], settings["GOARCH"], settings["CGO_ENABLED"], goos, goarch)
	}
	if !strings.Contains(settings["-ldflags"], "-X main.version="+version) {
		t.Errorf("%s: -ldflags %q, want the version stamped (-X main.version=%s)", name, settings["-ldflags"], version)
	}
	if goos != "linux" || goarch != runtime.GOARCH {
		return name
	}
	if f, err := elf.Open(file); err != nil {
		t.Errorf("%s: %v", name, err)
	} else {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s has a program interpreter: dynamically linked, want a static binary", name)
			}
		}
		f.Close()
	}
	out, err := exec.Command(file, "version").Output()
	if wantLine := "loom-conform " + version + " (kernel ABI"; err != nil || !strings.HasPrefix(string(out), wantLine) {
		t.Errorf("%s version = %q, %v; want %q…", name, out, err, wantLine)
	}
	if cmd == "loom-conform" {
		front := exec.Command(file, "spec", "--help")
		front.Env = []string{"PATH=" + t.TempDir()} // neither PATH nor $LOOM_CONFORM_FULL: beside it only
		if out, err := front.CombinedOutput(); err != nil || !strings.Contains(string(out), "spec") {
			t.Errorf("%s spec --help (run by the full binary beside it) = %v\n%s", name, err, out)
		}
	}
	return name
}
