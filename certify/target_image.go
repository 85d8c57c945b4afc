package certify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/dockerengine"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/wire/target"
)

// DefaultBridgePort is the container port a bridge image listens on unless --port says otherwise.
const DefaultBridgePort = target.DefaultBridgePort

// ImageTarget starts a bridge image on the Docker engine (internal/dockerengine: found as the
// docker CLI finds it, the image pulled when absent), waits until it answers the handshake,
// captures its logs for the report and always removes the container. The image must start its
// bridge on 0.0.0.0:Port; certify also passes LOOM_BRIDGE_LISTEN=0.0.0.0:Port in its environment,
// and LOOM_CONFORM_TOKEN, a fresh random bearer token (unless Env gives one), which every call
// then carries: a bridge listening beyond the container's loopback requires a token
// (docs/bridge.md, "Running it safely"), and one that ignores the variable is not harmed by it.
type ImageTarget struct {
	Image string
	Port  string            // container port (default 8080)
	Env   map[string]string // extra environment
	Cmd   []string          // arguments after the image's entrypoint (nil = the image's own)
}

func (t ImageTarget) Describe() Identity {
	return Identity{Kind: "image", Spec: t.Image, Flag: "--image " + shq.Quote(t.Image)}
}

func (t ImageTarget) port() string {
	p := t.Port
	if p == "" {
		p = DefaultBridgePort
	}
	return strings.TrimSuffix(p, "/tcp")
}

// handshakeProbe is the request the readiness wait sends.
const handshakeProbe = `{"jsonrpc":"2.0","id":0,"method":"bridge.handshake","params":{"client":"loom-conform readiness"}}`

func (t ImageTarget) Start(ctx context.Context) (*Running, error) {
	port := t.port() + "/tcp"
	env := map[string]string{"LOOM_BRIDGE_LISTEN": "0.0.0.0:" + t.port(), safehttp.TokenEnv: newImageToken()}
	for k, v := range t.Env {
		env[k] = v
	}
	token := env[safehttp.TokenEnv]
	run := &Running{Identity: t.Describe(), Token: token, Stop: func(context.Context) error { return nil }}
	eng, err := dockerengine.FromEnv()
	if err != nil {
		return run, fmt.Errorf("image %s: %v", t.Image, err)
	}
	_, lerr := eng.ImageInspect(ctx, t.Image)
	local := lerr == nil
	id, err := eng.Run(ctx, dockerengine.RunSpec{Image: t.Image, Env: env, Cmd: t.Cmd, Port: port})
	if id != "" {
		ic := &imageContainer{eng: eng, id: id}
		run.Identity.ContainerID = id
		run.Logs = ic.logs
		run.Stop = ic.remove
		run.Pauser = ic
		run.Alive = ic.alive
		if ins, ierr := eng.ImageInspect(ctx, t.Image); ierr == nil {
			run.Identity.ImageID = ins.ID
			run.Identity.RepoDigests = ins.RepoDigests
		}
	}
	if err != nil && !local && id == "" {
		// Not here, and not pullable: what the author must do is build it, not read a registry's
		// DNS error.
		return run, fmt.Errorf("image %s: no such local image; build it first (docker build -t %s .): certify starts local images and needs no registry (pulling it failed too: %s)",
			t.Image, shq.Quote(t.Image), clipHead(err.Error(), 200))
	}
	if err != nil {
		msg := fmt.Sprintf("image %s: %v", t.Image, err)
		if run.Logs != nil {
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			msg += "; container logs: " + clipStr(run.Logs(lctx), 800)
			cancel()
		}
		return run, errors.New(msg)
	}
	url, err := waitHandshake(ctx, eng, id, port, token)
	if err != nil {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return run, fmt.Errorf("image %s: %v; container logs: %s", t.Image, err, clipStr(run.Logs(lctx), 800))
	}
	run.URL = url
	run.Identity.URL = run.URL
	return run, nil
}

// waitHandshake polls bridge.handshake on the published port until the server in the container
// answers (whatever it answers: certify's first contact judges it), the container stops, or ctx
// ends. It tries the host the engine publishes on (which honours
// TESTCONTAINERS_HOST_OVERRIDE) and the loopback address, since a sandboxed client may resolve a
// gateway that does not forward published ports.
func waitHandshake(ctx context.Context, eng *dockerengine.Engine, id, port, token string) (string, error) {
	ins, err := eng.Inspect(ctx, id)
	if err != nil {
		return "", fmt.Errorf("mapped port %s: %w", port, err)
	}
	mapped := ins.HostPort(port)
	if mapped == "" {
		return "", fmt.Errorf("mapped port %s: the engine published none", port)
	}
	hosts := []string{"127.0.0.1"}
	if h := eng.PortHost(); h != "" && h != "localhost" && h != "127.0.0.1" {
		hosts = append([]string{h}, hosts...)
	}
	hc := &http.Client{Timeout: time.Second}
	var last error
	for {
		for _, h := range hosts {
			url := "http://" + net.JoinHostPort(h, mapped) + "/"
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(handshakeProbe))
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := hc.Do(req)
			if err != nil {
				last = err
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if !busy(resp.StatusCode) {
				return url, nil
			}
			last = fmt.Errorf("handshake answered HTTP %d: %s", resp.StatusCode, clipStr(string(b), 200))
		}
		if c, err := eng.Inspect(ctx, id); err == nil && !c.State.Running {
			return "", fmt.Errorf("the container stopped (%s, exit code %d) before answering the handshake", c.State.Status, c.State.ExitCode)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no handshake before the start timeout (last: %v)", last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// newImageToken is a bearer token for one container: 16 random bytes in hex.
func newImageToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type imageContainer struct {
	eng     *dockerengine.Engine
	id      string
	removed bool
	logText string
}

func (c *imageContainer) logs(ctx context.Context) string {
	if c.removed {
		return c.logText
	}
	out, err := c.eng.Logs(ctx, c.id, 1<<20)
	if err != nil && out == "" {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	c.logText = clipStr(out, 256<<10)
	return c.logText
}

// remove stops and removes the container (and its volumes); it first thaws a paused one.
func (c *imageContainer) remove(ctx context.Context) error {
	if c.removed {
		return nil
	}
	_ = c.Resume(ctx)
	c.logs(ctx)
	c.removed = true
	return c.eng.Remove(ctx, c.id)
}

// alive reports a container that stopped or is paused.
func (c *imageContainer) alive(ctx context.Context) error {
	st, err := c.eng.Inspect(ctx, c.id)
	switch {
	case err != nil:
		return fmt.Errorf("the container %s cannot be inspected: %v", shortContainer(c.id), err)
	case st.State.Paused:
		return fmt.Errorf("the container %s is paused and answers nothing", shortContainer(c.id))
	case !st.State.Running:
		return fmt.Errorf("the container %s stopped (%s, exit code %d)", shortContainer(c.id), st.State.Status, st.State.ExitCode)
	}
	return nil
}

func shortContainer(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Pause freezes the container, retrying a freeze the runtime could not complete (PauseWithRetry).
func (c *imageContainer) Pause(ctx context.Context) error {
	return PauseWithRetry(ctx, func(ctx context.Context) error { return c.eng.Pause(ctx, c.id) }, c.Resume)
}

func (c *imageContainer) Resume(ctx context.Context) error {
	return c.eng.Unpause(ctx, c.id)
}
