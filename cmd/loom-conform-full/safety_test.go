package main

import (
	"bufio"
	"bytes"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
)

// plantedDSN is a connection string with a password planted in it, and the text of it that must
// never be printed.
type plantedDSN struct {
	name, dsn string
	secrets   []string
}

// unreachable are DSNs of every form libpq and pgx accept, with passwords, pointing nowhere.
var unreachable = []plantedDSN{
	// libpq and pgx end the userinfo at the first '@': "S3cretTail@127.0.0.1" becomes the host a
	// driver's message names.
	{"URL userinfo holding @", "postgres://loom:PLANT3D@S3cretTail@127.0.0.1:1/loom?connect_timeout=2", []string{"PLANT3D", "S3cretTail"}},
	{"query password", "postgres://loom@127.0.0.1:1/loom?connect_timeout=2&password=PLANT3Dquery", []string{"PLANT3Dquery"}},
	{"quoted key=value", "host=127.0.0.1 port=1 user=loom password='PLANT3D kv pw' dbname=loom connect_timeout=2", []string{"PLANT3D", "kv pw"}},
	{"unquoted key=value", "host=127.0.0.1 port=1 password=PLANT3Dplain user=loom connect_timeout=2", []string{"PLANT3Dplain"}},
}

// clean fails the test when any output holds a secret.
func clean(t *testing.T, run string, secrets []string, outputs map[string]string) {
	t.Helper()
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				i := strings.Index(out, s)
				t.Errorf("%s: %s holds %q: …%s…", run, name, s, out[max(0, i-60):min(len(out), i+len(s)+20)])
			}
		}
	}
}

// reportFiles are the certify outputs written to files, by flag.
func reportFiles(t *testing.T) (args []string, read func() map[string]string) {
	dir := t.TempDir()
	files := map[string]string{"--report": "r.json", "--junit": "r.xml", "--html": "r.html", "--badge": "r.svg"}
	for flag, f := range files {
		args = append(args, flag, filepath.Join(dir, f))
	}
	return args, func() map[string]string {
		out := map[string]string{}
		for flag, f := range files {
			b, _ := os.ReadFile(filepath.Join(dir, f))
			out[flag] = string(b)
		}
		return out
	}
}

// withPassword plants password in a working DSN (trust authentication ignores it).
func withPassword(t *testing.T, dsn, password string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Skipf("the test DSN is not a URL (%v); planting a password needs one", err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String()
}

// Reference: I-NET-2 — a server beyond loopback refuses to start without a token, warns with one,
// and refuses a call without it; certify --url carries it (--token or the variable) and never
// prints it.
func TestServeBeyondLoopbackNeedsToken(t *testing.T) {
	t.Setenv(safehttp.TokenEnv, "")
	for _, args := range [][]string{{"serve-store", "--backend", "memory", "--listen", "0.0.0.0:0"}, {"serve-kernel", "--listen", "0.0.0.0:0"}} {
		code, _, stderr := runCLI(t, "", args...)
		if code != 2 || !strings.Contains(stderr, safehttp.TokenEnv) || !strings.Contains(stderr, "reachable from other machines") {
			t.Errorf("%v without a token = exit %d %q, want 2 naming %s", args, code, stderr, safehttp.TokenEnv)
		}
	}
	if code, _, stderr := runCLI(t, "", "serve-store", "--backend", "memory", "--listen", "0.0.0.0:0", "--token", "short"); code != 2 || !strings.Contains(stderr, "at least 16") {
		t.Errorf("serve-store --token short = exit %d %q, want 2 asking for 16 characters", code, stderr)
	}

	const token = "surfaces-test-token-0123456789"
	bin := certifytest.Binary(t)
	srv := exec.Command(bin, "serve-store", "--backend", "memory", "--listen", "0.0.0.0:0")
	srv.Env = append(os.Environ(), safehttp.TokenEnv+"="+token)
	errb := &lockedBuffer{}
	srv.Stderr = errb
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening http://") {
		t.Fatalf("serve-store beyond loopback with a token: first line %q (%v), stderr %q", line, err, errb.String())
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "listening http://"), "/"))
	// The warning is on stderr, which os/exec copies on its own goroutine: wait for it, a bounded
	// number of rounds.
	for i := 0; i < 100 && !strings.Contains(errb.String(), "warning: serving on"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "warning: serving on") {
		t.Errorf("serve-store beyond loopback: stderr %q, want the warning", errb.String())
	}
	u := "http://127.0.0.1:" + port + "/"
	code, stdout, stderr := runCLI(t, "", "certify", "eventstore", "--url", u, "--start-timeout", "10s")
	if code != 3 || !strings.Contains(stdout+stderr, "401") {
		t.Errorf("certify --url without the token = exit %d, want 3 naming HTTP 401\n%s", code, lastLines(stderr, 5))
	}
	code, stdout, stderr = runCLI(t, "", "certify", "eventstore", "--url", u, "--token", token, "--run", "^eventstore/append", "--seed", "1")
	if code != 5 {
		t.Errorf("certify --url --token = exit %d, want 5 (partial, the checks ran)\n%s", code, lastLines(stderr, 5))
	}
	clean(t, "certify --token", []string{token}, map[string]string{"stdout": stdout, "stderr": stderr})
}

// lockedBuffer is a bytes.Buffer safe for a child's output copier and the test to share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
