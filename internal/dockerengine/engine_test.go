package dockerengine

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindHost(t *testing.T) {
	exists := func(paths ...string) func(string) error {
		return func(p string) error {
			for _, q := range paths {
				if p == q {
					return nil
				}
			}
			return os.ErrNotExist
		}
	}
	home := t.TempDir()
	for _, tc := range []struct {
		name string
		vars map[string]string
		stat func(string) error
		want string
		err  string
	}{
		{"DOCKER_HOST first", map[string]string{"DOCKER_HOST": "tcp://10.0.0.2:2375"}, exists("/var/run/docker.sock"), "tcp://10.0.0.2:2375", ""},
		{"default socket", nil, exists("/var/run/docker.sock"), "unix:///var/run/docker.sock", ""},
		{"rootless socket", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, exists("/run/user/1000/docker.sock"), "unix:///run/user/1000/docker.sock", ""},
		{"no engine", nil, exists(), "", "no Docker engine found"},
		{"bad DOCKER_HOST", map[string]string{"DOCKER_HOST": "ssh://me@host"}, exists(), "", "want unix:///path or tcp://host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := findHost(hostEnv{get: func(k string) string { return tc.vars[k] }, home: home, stat: tc.stat})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("findHost = %v, %v, want an error containing %q", h, err, tc.err)
				}
				return
			}
			if err != nil || h.URL != tc.want {
				t.Fatalf("findHost = %q, %v, want %q", h.URL, err, tc.want)
			}
		})
	}
}

func TestFindHostContext(t *testing.T) {
	cfg := t.TempDir()
	name := "remote"
	h, err := findHost(hostEnv{get: func(k string) string {
		return map[string]string{"DOCKER_CONTEXT": name, "DOCKER_CONFIG": cfg}[k]
	}, stat: func(string) error { return nil }})
	if err == nil {
		t.Fatalf("findHost with a context that has no meta.json = %q, want an error", h.URL)
	}
	writeContext(t, cfg, name, "unix:///tmp/other.sock")
	h, err = findHost(hostEnv{get: func(k string) string {
		return map[string]string{"DOCKER_CONFIG": cfg}[k]
	}, stat: func(string) error { return os.ErrNotExist }})
	if err != nil || h.URL != "unix:///tmp/other.sock" {
		t.Fatalf("findHost(currentContext %s) = %q, %v, want unix:///tmp/other.sock", name, h.URL, err)
	}
}

func writeContext(t *testing.T, cfg, name, host string) {
	t.Helper()
	dir := filepath.Join(cfg, "contexts", "meta", sha256Hex(name))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(map[string]any{"Name": name, "Endpoints": map[string]any{"docker": map[string]string{"Host": host}}})
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"currentContext":"`+name+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestDemux(t *testing.T) {
	var b strings.Builder
	frame := func(stream byte, s string) {
		var h [8]byte
		h[0] = stream
		binary.BigEndian.PutUint32(h[4:], uint32(len(s)))
		b.Write(h[:])
		b.WriteString(s)
	}
	frame(1, "listening\n")
	frame(2, "warn: x\n")
	frame(1, "done\n")
	got, err := demux(strings.NewReader(b.String()), 1<<20)
	if want := "listening\nwarn: x\ndone\n"; err != nil || got != want {
		t.Fatalf("demux = %q, %v, want %q", got, err, want)
	}
	if got, _ := demux(strings.NewReader(b.String()), 12); got != "listening\nwa" {
		t.Fatalf("demux(limit 12) = %q, want the first 12 bytes", got)
	}
}

func TestRegistryAuth(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("DOCKER_CONFIG", cfg)
	auth := base64.StdEncoding.EncodeToString([]byte("me:secret"))
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"auths":{"registry.example:5000":{"auth":"`+auth+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e, _ := New(Host{URL: "unix:///x"})
	if got := e.registryAuth("acme/bridge:1"); got != "" {
		t.Errorf("registryAuth(a Docker Hub image) = %q, want none stored", got)
	}
	raw, err := base64.URLEncoding.DecodeString(e.registryAuth("registry.example:5000/acme/bridge:1"))
	var got map[string]string
	if err != nil || json.Unmarshal(raw, &got) != nil || got["username"] != "me" || got["password"] != "secret" || got["serveraddress"] != "registry.example:5000" {
		t.Errorf("registryAuth(registry.example:5000/…) = %s, %v, want me/secret for that registry", raw, err)
	}
}

// TestRunPullsAbsentImage drives Run, Inspect and Remove against a fake engine on a unix socket:
// create answers 404 until the image is pulled, and the pull asks for the latest tag only.
func TestRunPullsAbsentImage(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	pulled, removed := false, false
	var created map[string]any
	mux := http.NewServeMux()
	mux.HandleFunc("POST /containers/create", func(w http.ResponseWriter, r *http.Request) {
		if !pulled {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"No such image: acme/bridge:latest"}`))
			return
		}
		_ = json.NewDecoder(r.Body).Decode(&created)
		_, _ = w.Write([]byte(`{"Id":"c0ffee"}`))
	})
	mux.HandleFunc("POST /images/create", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("fromImage") != "acme/bridge" || r.URL.Query().Get("tag") != "latest" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		pulled = true
		_, _ = w.Write([]byte("{\"status\":\"Pulling\"}\n{\"status\":\"Done\"}\n"))
	})
	mux.HandleFunc("POST /containers/c0ffee/start", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /containers/c0ffee/json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"Id":"c0ffee","State":{"Status":"running","Running":true},"NetworkSettings":{"Ports":{"8080/tcp":[{"HostIp":"0.0.0.0","HostPort":"49153"}]}}}`))
	})
	mux.HandleFunc("DELETE /containers/c0ffee", func(w http.ResponseWriter, r *http.Request) {
		removed = r.URL.Query().Get("force") == "1" && r.URL.Query().Get("v") == "1"
		w.WriteHeader(http.StatusNoContent)
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	e, err := New(Host{URL: "unix://" + sock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	id, err := e.Run(ctx, RunSpec{Image: "acme/bridge", Env: map[string]string{"B": "2", "A": "1"}, Port: "8080/tcp"})
	if err != nil || id != "c0ffee" || !pulled {
		t.Fatalf("Run = %q, %v (pulled %v), want c0ffee after a pull", id, err, pulled)
	}
	if env, _ := json.Marshal(created["Env"]); string(env) != `["A=1","B=2"]` {
		t.Errorf("Run sent Env %s, want [\"A=1\",\"B=2\"]", env)
	}
	c, err := e.Inspect(ctx, id)
	if err != nil || !c.State.Running || c.HostPort("8080/tcp") != "49153" {
		t.Errorf("Inspect = %+v, %v, want running with 8080/tcp on 49153", c, err)
	}
	if err := e.Remove(ctx, id); err != nil || !removed {
		t.Errorf("Remove = %v (forced with volumes: %v), want nil, true", err, removed)
	}
	_, err = e.Inspect(ctx, "gone")
	var ae *APIError
	if !errors.As(err, &ae) || !NotFound(err) {
		t.Errorf("Inspect(gone) = %v, want an *APIError with HTTP 404", err)
	}
}
