package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/redact"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// secretRun is one run of a verb given secrets: its arguments, the environment it runs in, the
// file outputs it writes (by flag), the exit code it must end with and the secrets none of its
// outputs may hold in any form.
type secretRun struct {
	name    string
	args    []string
	env     map[string]string
	outputs []string // flags of file outputs, each given a fresh path
	code    int      // -1: any exit but 0
	secrets []string
	// after checks the outputs beyond the secrets (a reproduce line that re-runs the run).
	after func(t *testing.T, outs map[string]string)
}

// everyForm lists the forms of secret an output must not hold: as written, percent-decoded, and
// encoded as a URL, a JSON string, HTML and XML encode it.
func everyForm(secret string) []string {
	forms := redact.Forms(secret)
	if d, err := url.PathUnescape(secret); err == nil && d != secret {
		forms = append(forms, redact.Forms(d)...)
	}
	return forms
}

// run runs r in process and returns every output: stdout, stderr and each file by flag.
func (r secretRun) run(t *testing.T) map[string]string {
	t.Helper()
	for k, v := range r.env {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	args := append([]string{}, r.args...)
	files := map[string]string{}
	for _, flag := range r.outputs {
		files[flag] = filepath.Join(dir, strings.TrimPrefix(flag, "--")+".out")
		args = append(args, flag, files[flag])
	}
	code, stdout, stderr := runCLI(t, "", args...)
	if r.code == -1 && code == 0 || r.code >= 0 && code != r.code {
		t.Errorf("%v = exit %d, want %d\n%s", args, code, r.code, lastLines(stderr, 10))
	}
	outs := map[string]string{"stdout": stdout, "stderr": stderr}
	for flag, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%s was not written: %v", flag, err)
		}
		outs[flag] = string(b)
	}
	return outs
}

// noSecret fails the test when any output holds any form of any secret.
func noSecret(t *testing.T, secrets []string, outs map[string]string) {
	t.Helper()
	for name, out := range outs {
		for _, s := range secrets {
			for _, f := range everyForm(s) {
				if i := strings.Index(out, f); i >= 0 {
					t.Errorf("%s holds %q (a form of %q): …%s…", name, f, s, out[max(0, i-60):min(len(out), i+len(f)+20)])
				}
			}
		}
	}
}

// Reference: I-NET-7, I-NET-40 — no secret the run was given escapes: DSN passwords in every form
// libpq and pgx read, the userinfo of --url (a password, percent-encoded, and a token as a bare
// user name), --token, every LOOM_*_TOKEN variable and the secrets of an --exec command line are
// in no form in the stdout, stderr or any file output of any verb that takes one, and a reproduce
// line names the variable that supplies the secret again. With PostgreSQL (scripts/with-services.sh;
// with CI=true it fails without one) it also runs certify and a real fleet on a database that
// answers, and watches every process's command line while the fleet runs.
func TestNoSecretEscapes(t *testing.T) {
	certifyOuts := []string{"--report", "--junit", "--html", "--badge", "--write-ledger"}
	var runs []secretRun
	deployment := filepath.Join(t.TempDir(), "deploy.json")
	if err := os.WriteFile(deployment, []byte(`{"flows":[{"id":"order","computeTarget":"default"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range unreachable {
		dsnFile := filepath.Join(t.TempDir(), "dsn")
		if err := os.WriteFile(dsnFile, []byte(p.dsn+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		runs = append(runs,
			secretRun{name: "certify --dsn " + p.name, args: []string{"certify", "eventstore", "--dsn", p.dsn, "--start-timeout", "20s"}, outputs: certifyOuts, code: 3, secrets: p.secrets},
			secretRun{name: "serve-store --dsn " + p.name, args: []string{"serve-store", "--backend", "postgres", "--dsn", p.dsn}, code: -1, secrets: p.secrets},
			secretRun{name: "serve-kernel --dsn " + p.name, args: []string{"serve-kernel", "--dsn", p.dsn}, code: -1, secrets: p.secrets},
			secretRun{name: "worker --dsn-file " + p.name, args: []string{"worker", "--dsn-file", dsnFile}, code: -1, secrets: p.secrets},
			secretRun{name: "worker $DSN " + p.name, args: []string{"worker"}, env: map[string]string{storespg.DSNEnv: p.dsn}, code: -1, secrets: p.secrets},
			secretRun{name: "deploysim --real " + p.name, args: []string{"deploysim", "--real", "--dsn", p.dsn, "--json"}, code: -1, secrets: p.secrets},
			secretRun{name: "verify placement --dsn " + p.name, args: []string{"verify", "placement", "--deployment", deployment, "--dsn", p.dsn, "--json"}, code: -1, secrets: p.secrets},
		)
	}

	// A store bridge and a kernel reached through URLs with userinfo: a percent-encoded password,
	// and a token as a bare user name.
	srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "mem", Version: "1"}, EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bridgeURL, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	kernel, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ksrv := httptest.NewServer(kernel)
	defer ksrv.Close()
	withUser := func(u, userinfo string) string { return strings.Replace(u, "http://", "http://"+userinfo+"@", 1) }
	const urlPassword, userToken, flagToken = "Pr0xy%2FPa%26ss%3Cw%3E", "T0kenAsUser-7f3a", "flag-token-5e1d2c3b4a"
	namesURLEnv := func(t *testing.T, outs map[string]string) {
		if !strings.Contains(outs["--report"], `--url \"$`+certify.URLEnv+`\"`) {
			t.Errorf("the reproduce lines do not name $%s for a --url holding userinfo", certify.URLEnv)
		}
	}
	runs = append(runs,
		secretRun{name: "certify --url user:password", args: []string{"certify", "eventstore", "--url", withUser(bridgeURL, "user:"+urlPassword), "--token", flagToken, "--run", "^eventstore/append", "--seed", "3"},
			outputs: certifyOuts, code: 5, secrets: []string{urlPassword, flagToken}, after: namesURLEnv},
		secretRun{name: "certify --url token@", args: []string{"certify", "eventstore", "--url", withUser(bridgeURL, userToken), "--run", "^eventstore/append", "--seed", "3"},
			outputs: certifyOuts, code: 5, secrets: []string{userToken}, after: namesURLEnv},
		secretRun{name: "certify kernel --url user:password", args: []string{"certify", "kernel", "--url", withUser(ksrv.URL+"/", "user:"+urlPassword), "--run", "^kernel/handshake/", "--seed", "3"},
			outputs: []string{"--report", "--junit", "--html", "--badge"}, code: 5, secrets: []string{urlPassword}, after: namesURLEnv},
		// Nothing answers: the client's errors quote the URL it was given.
		secretRun{name: "certify --url token@ (unreachable)", args: []string{"certify", "eventstore", "--url", "http://" + userToken + "@127.0.0.1:1/", "--start-timeout", "2s"},
			outputs: certifyOuts, code: 3, secrets: []string{userToken}},
		secretRun{name: "certify --url user:password (unreachable)", args: []string{"certify", "kernel", "--url", "http://user:" + urlPassword + "@127.0.0.1:1/", "--start-timeout", "2s"},
			outputs: certifyOuts, code: 3, secrets: []string{urlPassword}},
		// The environment's tokens reach the outputs through what a failed bridge printed.
		secretRun{name: "certify --exec with LOOM_*_TOKEN and a DSN in its command line",
			args:    []string{"certify", "eventstore", "--exec", `sh -c 'echo "$LOOM_CONFORM_TOKEN $LOOM_EXTRA_TOKEN" >&2; exit 3' postgres://u:ExecPassw0rd-9@db/x`, "--start-timeout", "10s"},
			env:     map[string]string{"LOOM_CONFORM_TOKEN": "env-token-0a1b2c3d4e5f", "LOOM_EXTRA_TOKEN": "extra-token-6a7b8c9d"},
			outputs: certifyOuts, code: 3, secrets: []string{"env-token-0a1b2c3d4e5f", "extra-token-6a7b8c9d", "ExecPassw0rd-9"},
			after: func(t *testing.T, outs map[string]string) {
				if !strings.Contains(outs["stderr"], "--exec holds a password or token") {
					t.Errorf("stderr does not warn that --exec holds a secret")
				}
			}},
	)
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			outs := r.run(t)
			noSecret(t, r.secrets, outs)
			if r.after != nil {
				r.after(t, outs)
			}
		})
	}
	t.Run("postgres", func(t *testing.T) { secretsOnALiveDatabase(t, certifyOuts) })
}

// secretsOnALiveDatabase plants a password in a working DSN (trust authentication ignores it),
// certifies the store there and runs a real fleet on it: no output holds the password, the
// reproduce lines name $LOOM_CONFORM_POSTGRES_DSN, and no process's command line holds it while
// the fleet runs.
func secretsOnALiveDatabase(t *testing.T, certifyOuts []string) {
	const password = "PLANT3D@S3cret/Tail"
	dsn := withPassword(t, storespg.TestDSN(t), password)
	secrets := []string{password, "PLANT3D", "S3cret"}
	r := secretRun{args: []string{"certify", "eventstore", "--dsn", dsn, "--run", "^eventstore/append", "--seed", "3"}, outputs: certifyOuts, code: 5}
	outs := r.run(t)
	noSecret(t, secrets, outs)
	if !strings.Contains(outs["--report"], `\"$`+storespg.DSNEnv+`\"`) {
		t.Errorf("the reproduce lines do not name $%s for the DSN", storespg.DSNEnv)
	}

	bin := certifytest.Binary(t)
	junitFile := filepath.Join(t.TempDir(), "real.xml")
	cmd := exec.Command(bin, "deploysim", "--real", "--dsn", dsn, "--workers", "2", "--executions", "4", "--seed", "2", "--json", "--junit", junitFile)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	deadline := time.After(120 * time.Second)
	sawWorker := false
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatal("deploysim --real did not finish within 120 s")
		case <-time.After(100 * time.Millisecond):
			procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, p := range procs {
				b, _ := os.ReadFile(p)
				line := strings.ReplaceAll(string(b), "\x00", " ")
				if strings.Contains(line, " worker ") && strings.Contains(line, bin) {
					sawWorker = true
				}
				if strings.Contains(line, "PLANT3D") && !strings.Contains(line, "deploysim --real") {
					t.Errorf("a process's command line holds the password: %s", line)
				}
			}
		}
	}
	if !sawWorker {
		t.Log("no worker process was seen while the fleet ran (it finished between two looks)")
	}
	junitOut, _ := os.ReadFile(junitFile)
	noSecret(t, secrets, map[string]string{"stdout": so.String(), "stderr": se.String(), "--junit": string(junitOut)})
}
