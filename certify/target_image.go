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

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/wire/target"
)

// DefaultBridgePort is the container port a bridge image listens on unless --port says otherwise.
const DefaultBridgePort = target.DefaultBridgePort

// ImageTarget starts a bridge image with testcontainers-go, waits until it answers the handshake,
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
	opts := []tc.ContainerCustomizer{tc.WithExposedPorts(port), tc.WithEnv(env), tc.WithLogger(tclog.NewNoopLogger())}
	if t.Cmd != nil {
		opts = append(opts, tc.WithCmd(t.Cmd...))
	}
	local := t.localImage(ctx)
	ctr, err := tc.Run(ctx, t.Image, opts...)
	run := &Running{Identity: t.Describe(), Token: token, Stop: func(context.Context) error { return nil }}
	if ctr != nil {
		ic := &imageContainer{ctr: ctr}
		run.Identity.ContainerID = ctr.GetContainerID()
		run.Logs = ic.logs
		run.Stop = ic.remove
		run.Pauser = ic
		run.Alive = ic.alive
		if cli, cerr := tc.NewDockerClientWithOpts(ctx); cerr == nil {
			ic.cli = cli.Client
			if ins, ierr := cli.ImageInspect(ctx, t.Image); ierr == nil {
				run.Identity.ImageID = ins.ID
				run.Identity.RepoDigests = ins.RepoDigests
			}
		}
	}
	if err != nil && !local && ctr == nil {
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
	url, err := waitHandshake(ctx, ctr, port, token)
	if err != nil {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return run, fmt.Errorf("image %s: %v; container logs: %s", t.Image, err, clipStr(run.Logs(lctx), 800))
	}
	run.URL = url
	run.Identity.URL = run.URL
	return run, nil
}

// localImage reports whether the Docker engine holds the image (false too when it cannot say).
func (t ImageTarget) localImage(ctx context.Context) bool {
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return false
	}
	defer cli.Close()
	_, err = cli.ImageInspect(ctx, t.Image)
	return err == nil
}

// waitHandshake polls bridge.handshake on the published port until the server in the container
// answers (whatever it answers: certify's first contact judges it), the container stops, or ctx
// ends. It tries the host testcontainers resolves (which honours
// TESTCONTAINERS_HOST_OVERRIDE) and the loopback address, since a sandboxed client may resolve a
// gateway that does not forward published ports.
func waitHandshake(ctx context.Context, ctr *tc.DockerContainer, port, token string) (string, error) {
	mapped, err := ctr.MappedPort(ctx, port)
	if err != nil {
		return "", fmt.Errorf("mapped port %s: %w", port, err)
	}
	hosts := []string{"127.0.0.1"}
	if h, err := ctr.Host(ctx); err == nil && h != "" && h != "localhost" && h != "127.0.0.1" {
		hosts = append([]string{h}, hosts...)
	}
	hc := &http.Client{Timeout: time.Second}
	var last error
	for {
		for _, h := range hosts {
			url := "http://" + net.JoinHostPort(h, mapped.Port()) + "/"
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
		if st, err := ctr.State(ctx); err == nil && !st.Running {
			return "", fmt.Errorf("the container stopped (%s, exit code %d) before answering the handshake", st.Status, st.ExitCode)
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
	ctr     *tc.DockerContainer
	cli     *client.Client
	removed bool
	logText string
}

func (c *imageContainer) logs(ctx context.Context) string {
	if c.removed {
		return c.logText
	}
	rc, err := c.ctr.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	c.logText = clipStr(string(b), 256<<10)
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
	return c.ctr.Terminate(ctx)
}

// alive reports a container that stopped or is paused.
func (c *imageContainer) alive(ctx context.Context) error {
	st, err := c.ctr.State(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("the container %s cannot be inspected: %v", shortContainer(c.ctr.GetContainerID()), err)
	case st.Paused:
		return fmt.Errorf("the container %s is paused and answers nothing", shortContainer(c.ctr.GetContainerID()))
	case !st.Running:
		return fmt.Errorf("the container %s stopped (%s, exit code %d)", shortContainer(c.ctr.GetContainerID()), st.Status, st.ExitCode)
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
	if c.cli == nil {
		return errors.New("no docker client")
	}
	return PauseWithRetry(ctx, func(ctx context.Context) error {
		_, err := c.cli.ContainerPause(ctx, c.ctr.GetContainerID(), client.ContainerPauseOptions{})
		return err
	}, c.Resume)
}

func (c *imageContainer) Resume(ctx context.Context) error {
	if c.cli == nil {
		return errors.New("no docker client")
	}
	_, err := c.cli.ContainerUnpause(ctx, c.ctr.GetContainerID(), client.ContainerUnpauseOptions{})
	return err
}
