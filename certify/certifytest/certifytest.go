// Package certifytest builds what the certification tests run against: the loom-conform-full binary
// (every verb; static, CGO_ENABLED=0), a local `FROM scratch` bridge image holding only that binary, and the
// Docker gate (with CI=true a missing Docker engine fails the test; otherwise it skips with how to
// enable it). Builds happen once per test binary and are shared by every test in it; the binaries
// land in one directory per module checkout (SharedDir), shared by all test binaries under a file
// lock, so parallel packages link them once.
//
//	func TestImage(t *testing.T) {
//		img := certifytest.BridgeImage(t) // skips (or fails under CI=true) without Docker
//		rep, _ := certify.Run(ctx, certify.ImageTarget{Image: img}, certify.Config{Kinds: certify.Kinds()})
//		_ = rep
//	}
package certifytest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tc "github.com/testcontainers/testcontainers-go"

	"github.com/loom-kernel/loom-conform/internal/testenv"
)

// ImageRepo is the repository of the local bridge images the tests build. Each test binary builds
// its own tag (ImageRepo:test-<pid>-<time>), so parallel test binaries never retag one another's
// image (which left the replaced one dangling), and Main removes it when the tests end.
const ImageRepo = "loom-conform-bridge"

// ImageLabel marks every image the tests build, so a leftover one can be found and removed.
const ImageLabel = "org.loom-conform.test"

// Dockerfile is the bridge image: the static binary and nothing else, serving the SQLite store
// on port 8080. Extra arguments (a different --backend) replace the command.
const Dockerfile = `FROM scratch
COPY loom-conform-full /loom-conform-full
WORKDIR /data
EXPOSE 8080
ENTRYPOINT ["/loom-conform-full", "serve-store", "--listen", "0.0.0.0:8080"]
CMD ["--backend", "sqlite", "--file", "/data/loom.db"]
`

type once struct {
	once sync.Once
	val  string
	err  error
}

var (
	binary = &once{}
	image  = &once{}
	docker = &once{}
	// programs holds what BuildProgram built in this test binary, by package.
	programs = &struct {
		sync.Mutex
		built map[string]string
	}{built: map[string]string{}}
)

// ModuleRoot finds the directory holding go.mod, from the test's working directory up.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Binary builds ./cmd/loom-conform-full, the whole command line (CGO_ENABLED=0, static, linux),
// and returns its path. It is
// built once per test binary into a directory shared by every test binary of this module
// (SharedDir), under a file lock, so the packages `go test ./...` runs in parallel do not each
// link their own copy: when the binary there is up to date, `go build` only checks it (well under
// a second) instead of linking again (about four seconds). The directory holding it is also the
// image build context, so it contains nothing else.
//
// The packages compile with CGO_ENABLED=0 here; `make test` exports CGO_ENABLED=0 so the test
// builds and this one share the build cache. A plain `go test` (cgo on) compiles the module a
// second time with cgo off on a cold cache, once; later runs find both in the cache.
func Binary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		binary.val, binary.err = sharedBuild("bridge", "loom-conform-full", "./cmd/loom-conform-full",
			"CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.val
}

// BuildProgram builds the Go package at pkg (relative to the module root) into the shared
// directory (see Binary; with the test's own environment) and returns the binary's path.
func BuildProgram(t testing.TB, pkg string) string {
	t.Helper()
	pkg = "./" + strings.TrimPrefix(pkg, "./")
	programs.Lock()
	defer programs.Unlock()
	if p, ok := programs.built[pkg]; ok {
		return p
	}
	out, err := sharedBuild("prog-"+strings.NewReplacer("/", "-", ".", "").Replace(strings.TrimPrefix(pkg, "./")), filepath.Base(pkg), pkg)
	if err != nil {
		t.Fatal(err)
	}
	programs.built[pkg] = out
	return out
}

// SharedDir is the directory the test binaries of the module at root share for what they build:
// one per module checkout and architecture, under the system temporary directory. It outlives the
// test run on purpose (the next run finds its binaries up to date); removing it is always safe.
func SharedDir(root string) string {
	h := sha256.Sum256([]byte(root))
	return filepath.Join(os.TempDir(), fmt.Sprintf("loom-conform-certifytest-%s-%x", runtime.GOARCH, h[:6]))
}

// sharedBuild runs `go build -o SharedDir/sub/name pkg` with env added, holding the shared lock.
func sharedBuild(sub, name, pkg string, env ...string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(SharedDir(root), sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockShared(root)
	if err != nil {
		return "", err
	}
	defer unlock()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return out, nil
}

// lockShared takes the lock of SharedDir(root), waiting for another test binary holding it.
func lockShared(root string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(SharedDir(root), "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() { _ = unlockFile(f); f.Close() }, nil
}

// RequireDocker skips the test when no Docker engine answers, unless CI=true, where it fails.
func RequireDocker(t testing.TB) {
	t.Helper()
	docker.once.Do(func() {
		if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
			// The reaper image cannot be pulled here, and testcontainers reads its configuration
			// once per process, so this must be set before its first call. Containers are removed
			// by the tests themselves.
			_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cli, err := tc.NewDockerClientWithOpts(ctx)
		if err == nil {
			defer cli.Close()
			_, err = cli.Ping(ctx, pingOptions())
		}
		docker.err = err
	})
	if docker.err != nil {
		msg := fmt.Sprintf("Docker engine not reachable (%v): start Docker (or set DOCKER_HOST) to run the container certification tests", docker.err)
		testenv.Missing(t, msg)
	}
}

// BridgeImage builds the bridge image once (docker build of a context holding only the static
// binary and the Dockerfile; no image is pulled) and returns its tag.
func BridgeImage(t testing.TB) string {
	t.Helper()
	RequireDocker(t)
	bin := Binary(t)
	image.once.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			image.err = err
			return
		}
		unlock, err := lockShared(root)
		if err != nil {
			image.err = err
			return
		}
		defer unlock()
		dir := filepath.Dir(bin)
		if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(Dockerfile), 0o644); err != nil {
			image.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		tag := fmt.Sprintf("%s:test-%d-%x", ImageRepo, os.Getpid(), time.Now().UnixNano())
		image.err = buildImage(ctx, dir, tag)
		image.val = tag
	})
	if image.err != nil {
		t.Fatal(image.err)
	}
	return image.val
}

// Main runs the tests. Use it from TestMain:
//
//	func TestMain(m *testing.M) { certifytest.Main(m) }
//
// What Binary and BuildProgram built stays in SharedDir for the next test binary and run; the
// bridge image this binary built is removed (with its untagged parents), so a test run leaves no
// image behind.
func Main(m *testing.M) {
	code := m.Run()
	if image.val != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := RemoveImage(ctx, image.val); err != nil {
			fmt.Fprintf(os.Stderr, "certifytest: removing %s: %v\n", image.val, err)
		}
		cancel()
	}
	os.Exit(code)
}
