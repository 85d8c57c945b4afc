// Package certifytest builds what the certification tests run against: the loom-conform binary
// (static, CGO_ENABLED=0), a local `FROM scratch` bridge image holding only that binary, and the
// Docker gate (with CI=true a missing Docker engine fails the test; otherwise it skips with how to
// enable it). Builds happen once per test binary and are shared by every test in it.
//
//	func TestImage(t *testing.T) {
//		img := certifytest.BridgeImage(t) // skips (or fails under CI=true) without Docker
//		rep, _ := certify.Run(ctx, certify.ImageTarget{Image: img}, certify.Config{Kinds: certify.Kinds()})
//		_ = rep
//	}
package certifytest

import (
	"context"
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
)

// ImageTag is the tag of the local bridge image the tests build.
const ImageTag = "loom-conform-bridge:test"

// Dockerfile is the bridge image: the static binary and nothing else, serving the SQLite store
// on port 8080. Extra arguments (a different --backend) replace the command.
const Dockerfile = `FROM scratch
COPY loom-conform /loom-conform
WORKDIR /data
EXPOSE 8080
ENTRYPOINT ["/loom-conform", "serve-store", "--listen", "0.0.0.0:8080"]
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

// Binary builds ./cmd/loom-conform once (CGO_ENABLED=0, static) and returns its path. The
// directory holding it is also the image build context, so it contains nothing else.
func Binary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		root, err := ModuleRoot()
		if err != nil {
			binary.err = err
			return
		}
		dir, err := os.MkdirTemp("", "loom-conform-bin-")
		if err != nil {
			binary.err = err
			return
		}
		out := filepath.Join(dir, "loom-conform")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/loom-conform")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
		if b, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build ./cmd/loom-conform: %v\n%s", err, b)
			return
		}
		binary.val = out
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.val
}

// BuildProgram builds the Go package at pkg (relative to the module root) into a temporary
// directory and returns the binary's path.
func BuildProgram(t testing.TB, pkg string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, "./"+strings.TrimPrefix(pkg, "./"))
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
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
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: " + msg)
		}
		t.Skip(msg)
	}
}

// BridgeImage builds the bridge image once (docker build of a context holding only the static
// binary and the Dockerfile; no image is pulled) and returns its tag.
func BridgeImage(t testing.TB) string {
	t.Helper()
	RequireDocker(t)
	bin := Binary(t)
	image.once.Do(func() {
		dir := filepath.Dir(bin)
		if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(Dockerfile), 0o644); err != nil {
			image.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		image.err = buildImage(ctx, dir, ImageTag)
		image.val = ImageTag
	})
	if image.err != nil {
		t.Fatal(image.err)
	}
	return image.val
}

// Main runs the tests and then removes what Binary built. Use it from TestMain:
//
//	func TestMain(m *testing.M) { certifytest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if binary.val != "" {
		_ = os.RemoveAll(filepath.Dir(binary.val))
	}
	os.Exit(code)
}
