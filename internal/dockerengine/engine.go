package dockerengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Engine is a connection to one Docker engine.
type Engine struct {
	host Host
	base string // scheme://authority every request path is put after
	hc   *http.Client
	home string
}

// FromEnv connects to the engine FindHost locates.
func FromEnv() (*Engine, error) {
	h, err := FindHost()
	if err != nil {
		return nil, err
	}
	return New(h)
}

// New returns a client of the engine at h. It opens no connection until the first call.
func New(h Host) (*Engine, error) {
	u, err := url.Parse(h.URL)
	if err != nil {
		return nil, fmt.Errorf("docker host %q: %w", h.URL, err)
	}
	tr := &http.Transport{TLSClientConfig: h.TLS, MaxIdleConns: 4, DisableCompression: true}
	e := &Engine{host: h, hc: &http.Client{Transport: tr}}
	e.home, _ = os.UserHomeDir()
	switch u.Scheme {
	case "unix":
		sock := u.Path
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}
		e.base = "http://docker"
	case "tcp":
		scheme := "http"
		if h.TLS != nil {
			scheme = "https"
		}
		e.base = scheme + "://" + u.Host
	default:
		return nil, fmt.Errorf("docker host %q: want unix:// or tcp://", h.URL)
	}
	return e, nil
}

// PortHost is the host name a port the engine publishes is reached at: TESTCONTAINERS_HOST_OVERRIDE
// when set (as testcontainers honours it), the engine's own host for a tcp:// engine, else
// "localhost".
func (e *Engine) PortHost() string {
	if h := os.Getenv("TESTCONTAINERS_HOST_OVERRIDE"); h != "" {
		return h
	}
	if u, err := url.Parse(e.host.URL); err == nil && u.Scheme == "tcp" && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// APIError is an answer of the engine other than success.
type APIError struct {
	Op      string // "POST /containers/create"
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("docker %s: HTTP %d: %s", e.Op, e.Status, e.Message)
}

// NotFound reports an engine answer of 404 (no such container or image).
func NotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// do sends one request and returns the response of a 2xx answer; any other is an *APIError.
func (e *Engine) do(ctx context.Context, method, path string, query url.Values, body any, header http.Header) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := e.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &m) != nil || m.Message == "" {
		m.Message = strings.TrimSpace(string(b))
	}
	return nil, &APIError{Op: method + " " + path, Status: resp.StatusCode, Message: m.Message}
}

// call sends a request and decodes a JSON answer into out (nil: the answer is discarded).
func (e *Engine) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	resp, err := e.do(ctx, method, path, query, body, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(out); err != nil {
		return fmt.Errorf("docker %s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

// RunSpec is a container to run.
type RunSpec struct {
	Image string
	Env   map[string]string
	Cmd   []string // nil: the image's own
	Port  string   // a container port to publish on an ephemeral host port, "8080/tcp"
}

// Run creates and starts a container of s, pulling the image first when the engine does not have
// it. A container that was created is returned with its id also when starting it failed, so the
// caller can read its logs and remove it.
func (e *Engine) Run(ctx context.Context, s RunSpec) (string, error) {
	env := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	cfg := map[string]any{
		"Image":        s.Image,
		"Env":          env,
		"ExposedPorts": map[string]any{s.Port: map[string]any{}},
		"HostConfig": map[string]any{
			"PortBindings": map[string]any{s.Port: []map[string]string{{"HostIp": "", "HostPort": ""}}},
		},
	}
	if s.Cmd != nil {
		cfg["Cmd"] = s.Cmd
	}
	var created struct {
		ID string `json:"Id"`
	}
	err := e.call(ctx, http.MethodPost, "/containers/create", nil, cfg, &created)
	if NotFound(err) {
		if perr := e.Pull(ctx, s.Image); perr != nil {
			return "", perr
		}
		err = e.call(ctx, http.MethodPost, "/containers/create", nil, cfg, &created)
	}
	if err != nil {
		return "", err
	}
	return created.ID, e.call(ctx, http.MethodPost, "/containers/"+url.PathEscape(created.ID)+"/start", nil, nil, nil)
}

// Pull fetches image from its registry, with the credentials the docker configuration stores
// for that registry, if any.
func (e *Engine) Pull(ctx context.Context, image string) error {
	q := url.Values{"fromImage": {image}}
	if !strings.Contains(image, "@") && !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
		q.Set("tag", "latest") // without a tag the engine would pull every tag
	}
	h := http.Header{}
	if auth := e.registryAuth(image); auth != "" {
		h.Set("X-Registry-Auth", auth)
	}
	resp, err := e.do(ctx, http.MethodPost, "/images/create", q, nil, h)
	if err != nil {
		return fmt.Errorf("pulling %s: %w", image, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var msg struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Error != "" {
			return fmt.Errorf("pulling %s: %s", image, msg.Error)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("pulling %s: %w", image, err)
	}
	return nil
}

// registryAuth is the X-Registry-Auth header for image's registry from the "auths" of the docker
// configuration ("" when it stores none).
func (e *Engine) registryAuth(image string) string {
	registry := "https://index.docker.io/v1/"
	if i := strings.IndexByte(image, '/'); i > 0 {
		if first := image[:i]; strings.ContainsAny(first, ".:") || first == "localhost" {
			registry = first
		}
	}
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		dir = filepath.Join(e.home, ".docker")
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return ""
	}
	var cfg struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return ""
	}
	entry, ok := cfg.Auths[registry]
	if !ok {
		entry, ok = cfg.Auths["https://"+registry]
	}
	if !ok || entry.Auth == "" {
		return ""
	}
	up, err := base64.StdEncoding.DecodeString(entry.Auth)
	user, pass, found := strings.Cut(string(up), ":")
	if err != nil || !found {
		return ""
	}
	j, _ := json.Marshal(map[string]string{"username": user, "password": pass, "serveraddress": registry})
	return base64.URLEncoding.EncodeToString(j)
}

// Container is what Inspect reports of a container.
type Container struct {
	ID    string `json:"Id"`
	Image string `json:"Image"` // the image's id
	State struct {
		Status   string `json:"Status"`
		Running  bool   `json:"Running"`
		Paused   bool   `json:"Paused"`
		ExitCode int    `json:"ExitCode"`
	} `json:"State"`
	NetworkSettings struct {
		Ports map[string][]struct {
			HostIP   string `json:"HostIp"`
			HostPort string `json:"HostPort"`
		} `json:"Ports"`
	} `json:"NetworkSettings"`
}

// HostPort is the host port the container's port is published on ("" when it is not).
func (c Container) HostPort(port string) string {
	for _, b := range c.NetworkSettings.Ports[port] {
		if b.HostPort != "" {
			return b.HostPort
		}
	}
	return ""
}

// Inspect reports a container's state and published ports.
func (e *Engine) Inspect(ctx context.Context, id string) (Container, error) {
	var c Container
	err := e.call(ctx, http.MethodGet, "/containers/"+url.PathEscape(id)+"/json", nil, nil, &c)
	return c, err
}

// Image is what ImageInspect reports of an image.
type Image struct {
	ID          string   `json:"Id"`
	RepoDigests []string `json:"RepoDigests"`
}

// ImageInspect reports an image's id and repository digests.
func (e *Engine) ImageInspect(ctx context.Context, image string) (Image, error) {
	var im Image
	err := e.call(ctx, http.MethodGet, "/images/"+image+"/json", nil, nil, &im)
	return im, err
}

// Logs returns up to limit bytes of a container's output, stdout and stderr in the order they
// were written.
func (e *Engine) Logs(ctx context.Context, id string, limit int64) (string, error) {
	resp, err := e.do(ctx, http.MethodGet, "/containers/"+url.PathEscape(id)+"/logs", url.Values{"stdout": {"1"}, "stderr": {"1"}}, nil, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, limit+limit/4+8)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.docker.raw-stream") {
		b, err := io.ReadAll(io.LimitReader(body, limit))
		return string(b), err
	}
	return demux(body, limit)
}

// demux joins the frames of a multiplexed log stream (an 8-byte header, then the frame's bytes).
func demux(r io.Reader, limit int64) (string, error) {
	var out bytes.Buffer
	var hdr [8]byte
	for int64(out.Len()) < limit {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return out.String(), err
		}
		n := int64(binary.BigEndian.Uint32(hdr[4:]))
		if _, err := io.CopyN(&out, r, min(n, limit-int64(out.Len()))); err != nil {
			break
		}
	}
	return out.String(), nil
}

// Pause freezes a container's processes.
func (e *Engine) Pause(ctx context.Context, id string) error {
	return e.call(ctx, http.MethodPost, "/containers/"+url.PathEscape(id)+"/pause", nil, nil, nil)
}

// Unpause thaws a paused container.
func (e *Engine) Unpause(ctx context.Context, id string) error {
	return e.call(ctx, http.MethodPost, "/containers/"+url.PathEscape(id)+"/unpause", nil, nil, nil)
}

// Remove kills and removes a container and its anonymous volumes.
func (e *Engine) Remove(ctx context.Context, id string) error {
	err := e.call(ctx, http.MethodDelete, "/containers/"+url.PathEscape(id), url.Values{"force": {"1"}, "v": {"1"}}, nil, nil)
	if NotFound(err) {
		return nil
	}
	return err
}
