package dockerengine

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Host is where the engine listens and how to reach it.
type Host struct {
	// URL is the engine's address: unix:///path/to/docker.sock or tcp://host:port.
	URL string
	// TLS is set for a tcp:// engine that wants TLS (DOCKER_TLS_VERIFY).
	TLS *tls.Config
}

// hostEnv is what FindHost reads, as a struct so tests need not change the process environment.
type hostEnv struct {
	get  func(string) string
	home string
	stat func(string) error
}

// FindHost locates the engine as the docker CLI does (see the package documentation).
func FindHost() (Host, error) {
	home, _ := os.UserHomeDir()
	return findHost(hostEnv{get: os.Getenv, home: home, stat: func(p string) error { _, err := os.Stat(p); return err }})
}

func findHost(env hostEnv) (Host, error) {
	if h := env.get("DOCKER_HOST"); h != "" {
		return withTLS(h, env)
	}
	if h, ok, err := contextHost(env); err != nil || ok {
		return h, err
	}
	candidates := []string{"/var/run/docker.sock"}
	if d := env.get("XDG_RUNTIME_DIR"); d != "" {
		candidates = append(candidates, filepath.Join(d, "docker.sock"))
	}
	if env.home != "" {
		candidates = append(candidates, filepath.Join(env.home, ".docker", "run", "docker.sock"))
	}
	for _, c := range candidates {
		if env.stat(c) == nil {
			return Host{URL: "unix://" + c}, nil
		}
	}
	return Host{}, fmt.Errorf("no Docker engine found: DOCKER_HOST is unset and none of %s exists", strings.Join(candidates, ", "))
}

// withTLS adds the TLS configuration DOCKER_TLS_VERIFY and DOCKER_CERT_PATH ask for.
func withTLS(h string, env hostEnv) (Host, error) {
	u, err := url.Parse(h)
	if err != nil || (u.Scheme != "unix" && u.Scheme != "tcp") {
		return Host{}, fmt.Errorf("DOCKER_HOST %q: want unix:///path or tcp://host:port", h)
	}
	if u.Scheme != "tcp" || env.get("DOCKER_TLS_VERIFY") == "" {
		return Host{URL: h}, nil
	}
	dir := env.get("DOCKER_CERT_PATH")
	if dir == "" {
		dir = filepath.Join(env.home, ".docker")
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	if err != nil {
		return Host{}, fmt.Errorf("DOCKER_TLS_VERIFY: %w", err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		return Host{}, fmt.Errorf("DOCKER_TLS_VERIFY: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return Host{}, fmt.Errorf("DOCKER_TLS_VERIFY: %s holds no certificate", filepath.Join(dir, "ca.pem"))
	}
	return Host{URL: h, TLS: &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}}, nil
}

// contextHost reads the current docker context's endpoint: DOCKER_CONTEXT, else the
// currentContext of ~/.docker/config.json; "default" (or none) means the default socket.
func contextHost(env hostEnv) (Host, bool, error) {
	name := env.get("DOCKER_CONTEXT")
	if name == "" {
		var cfg struct {
			CurrentContext string `json:"currentContext"`
		}
		if b, err := os.ReadFile(filepath.Join(configDir(env), "config.json")); err == nil {
			_ = json.Unmarshal(b, &cfg) // an unreadable config names no context
		}
		name = cfg.CurrentContext
	}
	if name == "" || name == "default" {
		return Host{}, false, nil
	}
	b, err := os.ReadFile(filepath.Join(configDir(env), "contexts", "meta", sha256Hex(name), "meta.json"))
	if err != nil {
		return Host{}, false, fmt.Errorf("docker context %q: %w", name, err)
	}
	var meta struct {
		Endpoints map[string]struct {
			Host string `json:"Host"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return Host{}, false, fmt.Errorf("docker context %q: %w", name, err)
	}
	h := meta.Endpoints["docker"].Host
	if h == "" {
		return Host{}, false, errors.New("docker context " + name + " names no docker endpoint")
	}
	host, err := withTLS(h, env)
	return host, true, err
}

// configDir is the docker CLI's configuration directory (DOCKER_CONFIG or ~/.docker).
func configDir(env hostEnv) string {
	if d := env.get("DOCKER_CONFIG"); d != "" {
		return d
	}
	return filepath.Join(env.home, ".docker")
}

// sha256Hex names a context's metadata directory.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
