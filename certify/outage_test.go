package certify_test

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/wire/faultproxy"
)

// triggerAfter is a progress writer that calls fault once, after n progress lines: mid-run.
type triggerAfter struct {
	mu    sync.Mutex
	n     int
	fault func()
	buf   bytes.Buffer
}

func (w *triggerAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.n > 0 && bytes.HasPrefix(p, []byte("[")) { // a check's line, "[i/n …] verdict id"
		if w.n -= bytes.Count(p, []byte("\n")); w.n <= 0 {
			w.fault()
		}
	}
	return len(p), nil
}

func (w *triggerAfter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// proxiedDSN puts a TCP fault proxy between the store and the database, so a test can kill or
// freeze "the database" without touching the cluster other tests share.
func proxiedDSN(t *testing.T) (string, *faultproxy.Proxy) {
	t.Helper()
	dsn := postgres.TestDSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Fatalf("%s = %q: want a postgres:// URL", postgres.DSNEnv, dsn)
	}
	p, err := faultproxy.NewTCP(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	u.Host = p.Addr()
	return u.String(), p
}

// Reference: DESIGN §7.1 "whose fault", I-CERT-12. The database of a --dsn target dies (its
// connections reset, new ones refused) or freezes mid-run: the run ends target-failed naming the
// database, every check judged before keeps its verdict, and no check is failed or left unknown on
// account of the outage (the issue saw 80 MUST failures for a SIGKILL and 59 unknowns blaming the
// bridge for a SIGSTOP).
func TestDatabaseOutageIsTargetFailed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(p *faultproxy.Proxy)
	}{
		{"killed", func(p *faultproxy.Proxy) { _ = p.Close() }},
		{"frozen", func(p *faultproxy.Proxy) { p.Freeze() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn, proxy := proxiedDSN(t)
			progress := &triggerAfter{n: 3, fault: func() { tc.fault(proxy) }}
			rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "postgres", DSN: dsn}},
				certify.Config{Kinds: []string{"eventstore"}, Run: "^eventstore/(append-read-order|read-unknown-empty|append-conflict|append-invalid|isolation|read-range-bounds|append-if-unchanged|append-resend-conflict)$", Seed: 1,
					Timeout: 5 * time.Second, OutageWait: 2 * time.Second, Progress: progress})
			proxy.Thaw()
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "the database") || !strings.Contains(rep.TargetError, "does not answer") {
				t.Fatalf("certify/outage [I-CERT-12]: Run(database %s mid-run) = %s %q, want target-failed naming the database\nprogress:\n%s",
					tc.name, rep.Verdict, rep.TargetError, progress)
			}
			if len(rep.Checks) < 3 {
				t.Errorf("%d checks kept, want the 3 judged before the outage", len(rep.Checks))
			}
			for _, c := range rep.Checks {
				if c.Verdict != kits.Pass && c.Verdict != kits.Skip {
					t.Errorf("certify/outage [I-CERT-12]: %s = %s %q, want no verdict resting on the outage", c.ID, c.Verdict, c.Message)
				}
			}
			if strings.Contains(rep.TargetError, "password") {
				t.Errorf("TargetError %q shows the DSN's password", rep.TargetError)
			}
		})
	}
}

// A database that freezes for longer than a check's time limit and comes back within the outage
// wait costs nothing: the interrupted check runs again and the run is judged as if nothing
// happened.
func TestDatabaseThatComesBackIsJudged(t *testing.T) {
	dsn, proxy := proxiedDSN(t)
	progress := &triggerAfter{n: 3, fault: func() {
		proxy.Freeze()
		time.AfterFunc(8*time.Second, proxy.Thaw)
	}}
	rep, err := certify.Run(context.Background(), certify.BuiltinTarget{Backend: certify.Backend{Name: "postgres", DSN: dsn}},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^eventstore/(append-read-order|read-unknown-empty|append-conflict|append-invalid|isolation|read-range-bounds|append-if-unchanged|append-resend-conflict)$", Seed: 1,
			Timeout: 5 * time.Second, OutageWait: time.Minute, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != certify.Partial || rep.TargetError != "" || rep.Summary.Fail+rep.Summary.Unknown != 0 {
		t.Fatalf("certify/outage [I-CERT-12]: Run(database frozen for 8 s) = %s %q, %d fail, %d unknown: %v; want the partial run judged in full\nprogress:\n%s",
			rep.Verdict, rep.TargetError, rep.Summary.Fail, rep.Summary.Unknown, failing(rep), progress)
	}
	if !strings.Contains(progress.String(), "running the check again") {
		t.Errorf("progress does not say the target came back and the check ran again:\n%s", progress)
	}
}
