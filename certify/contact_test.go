package certify_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// Reference: I-CERT-30 — a target that does not answer the handshake of the kind asked for is one
// clear error at first contact, within seconds, exit 3 and no check: what it answered, what was
// wanted, the likely mistake. Each wrong target is a registered mutant (certify.Mutants).
func TestFirstContact(t *testing.T) {
	text := func(ctype, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			fmt.Fprint(w, body)
		})
	}
	store, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "a store", Version: "1"},
		EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mutant string // "" for a wrong target that is not a mutant (a mistake of the caller)
		kind   string
		h      http.Handler
		want   []string
	}{
		{"bridge/first-contact/not-json", "eventstore", text("text/plain", "ok\n"),
			[]string{"is not a store bridge", `body "ok"`, "not JSON", "docs/bridge.md", "Content-Type application/json"}},
		{"bridge/first-contact/not-jsonrpc", "all", text("application/json", `{"protocol":"1.0.0"}`),
			[]string{"not a JSON-RPC 2.0 response", `"jsonrpc": "2.0"`}},
		{"bridge/first-contact/web-page", "all", text("text/html", "<!DOCTYPE html><html>…"),
			[]string{"text/html", "looks like a web page", `"listening "`}},
		{"bridge/first-contact/kernel-as-store", "all", reference(t, kernel.Features{}),
			[]string{"is a kernel, not a store bridge", "-32601", "wire.handshake", `"ref"`, "certify kernel --url"}},
		{"bridge/first-contact/store-as-kernel", certify.KernelKind, store,
			[]string{"is a store bridge, not a kernel", "-32601", "bridge.handshake", `"a store"`, "certify all --url"}},
		{"", "all", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "send your bearer token", http.StatusUnauthorized)
		}), []string{"unauthorized: give --token", "HTTP 401 Unauthorized", "send your bearer token"}},
	} {
		name := tc.mutant
		if name == "" {
			name = "unauthorized"
		}
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			rep, progress := contact(t, tc.kind, certify.URLTarget{URL: srv.URL + "/"}, time.Minute)
			assertFirstContact(t, rep, progress, tc.want)
			if tc.mutant != "" {
				proof.Rejected(t, tc.mutant, "certify/first-contact", "certify/first-contact [I-CERT-30]: Handshake("+srv.URL+") = "+rep.TargetError+", want target failed")
			}
		})
	}

	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String() + "/"
		l.Close() // nothing listens there any more
		rep, progress := contact(t, "eventstore", certify.URLTarget{URL: url}, 700*time.Millisecond)
		assertFirstContact(t, rep, progress, []string{"connection refused at " + url, "nothing listens there"})
		if !strings.HasPrefix(progress, "waiting for a store bridge at "+url+" to answer bridge.handshake") ||
			!strings.Contains(progress, "\nconnection refused at "+url+": nothing listens there yet") || strings.Count(progress, "\n") != 2 {
			t.Errorf("certify/first-contact [I-CERT-30]: the refusal is not said at once, once:\n%s", progress)
		}
	})
	t.Run("exit status", func(t *testing.T) {
		rep, _ := contact(t, "all", certify.ExecTarget{Command: "false"}, time.Minute)
		assertFirstContact(t, rep, "", []string{"exited with status 1 before printing its listening line", "wrote nothing to stderr"})
	})
}

// contact certifies target as kind with progress captured, and fails the test if that takes
// longer than first contact should.
func contact(t *testing.T, kind string, target certify.Target, startTimeout time.Duration) (*certify.Report, string) {
	t.Helper()
	var progress bytes.Buffer
	cfg := certify.Config{Kinds: []string{kind}, StartTimeout: startTimeout, Progress: &progress, Command: "loom-conform"}
	t0 := time.Now()
	var rep *certify.Report
	var err error
	if kind == certify.KernelKind {
		rep, err = certify.RunKernel(context.Background(), target, cfg)
	} else {
		if cfg.Kinds, err = certify.ParseKind(kind); err != nil {
			t.Fatal(err)
		}
		rep, err = certify.Run(context.Background(), target, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > startTimeout+20*time.Second {
		t.Errorf("certify/first-contact [I-CERT-30]: first contact took %v", d)
	}
	return rep, progress.String()
}

func assertFirstContact(t *testing.T, rep *certify.Report, progress string, want []string) {
	t.Helper()
	if rep.Verdict != certify.TargetFailed || rep.Verdict.ExitCode() != 3 || len(rep.Checks) != 0 {
		t.Fatalf("certify/first-contact [I-CERT-30]: verdict %s with %d checks (target error %q), want target-failed (exit 3) and no check\nprogress:\n%s",
			rep.Verdict, len(rep.Checks), rep.TargetError, progress)
	}
	for _, w := range want {
		if !strings.Contains(rep.TargetError, w) {
			t.Errorf("certify/first-contact [I-CERT-30]: the cause %q does not say %q", rep.TargetError, w)
		}
	}
	var b bytes.Buffer
	if err := certify.WriteCertificate(&b, rep); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n > 8 || strings.Contains(b.String(), "not served") {
		t.Errorf("certify/first-contact [I-CERT-30]: the certificate of a target that never answered is %d lines:\n%s", n, b.String())
	}
}

// Reference: I-CERT-31 — every certificate, a store bridge's too, reports the target's median
// round trip beside the reference's; a bridge 40 ms a call (a server without TCP_NODELAY) is told
// why before the first check, and its certificate says so.
func TestEveryCertificateReportsItsRoundTrip(t *testing.T) {
	store, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "a store", Version: "1"},
		EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"fast", 0}, {"40 ms a call", 40 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(tc.delay)
				store.ServeHTTP(w, r)
			}))
			defer srv.Close()
			var progress bytes.Buffer
			rep, err := certify.Run(context.Background(), certify.URLTarget{URL: srv.URL + "/"},
				certify.Config{Kinds: []string{"eventstore"}, Run: "^bridge/handshake$", Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			l := rep.RoundTrip
			if l == nil || l.Samples == 0 || l.Call != bridge.MethodHandshake || l.MedianMs < float64(tc.delay/time.Millisecond) {
				t.Fatalf("certify/round-trip [I-CERT-31]: RoundTrip = %+v, want a median of bridge.handshake of at least %v", l, tc.delay)
			}
			var b bytes.Buffer
			if err := certify.WriteCertificate(&b, rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "round trip:     median") || !strings.Contains(progress.String(), "handshake: a store 1, serving EventStore") {
				t.Errorf("certify/round-trip [I-CERT-31]: the certificate or the progress lacks the round trip:\n%s\n%s", b.String(), progress.String())
			}
			if !l.Slow {
				return // the reference itself was this slow on this machine: nothing to name
			}
			note := strings.Index(progress.String(), "NOTE slow bridge")
			if note < 0 || note > strings.Index(progress.String(), "bridge/handshake") || !strings.Contains(b.String(), "TCP_NODELAY") {
				t.Errorf("certify/round-trip [I-CERT-31]: a slow bridge is not told why before its checks, or on its certificate:\n%s\n%s", progress.String(), b.String())
			}
			if l.Nagle && !strings.Contains(b.String(), "Nagle's algorithm meeting delayed ACKs") {
				t.Errorf("certify/round-trip [I-CERT-31]: a median near 40 ms is not named as Nagle's:\n%s", b.String())
			}
		})
	}
}
