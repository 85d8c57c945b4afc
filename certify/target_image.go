package certify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DefaultBridgePort is the container port a bridge image listens on unless --port says otherwise.
const DefaultBridgePort = "8080"

// ImageTarget starts a bridge image with testcontainers-go, waits until it answers the handshake,
// captures its logs for the report and always removes the container. The image must start its
// bridge on 0.0.0.0:Port; certify also passes LOOM_BRIDGE_LISTEN=0.0.0.0:Port in its environment.
type ImageTarget struct {
	Image string
	Port  string            // container port (default 8080)
	Env   map[string]string // extra environment
	Cmd   []string          // arguments after the image's entrypoint (nil = the image's own)
}

func (t ImageTarget) Describe() Identity {
	return Identity{Kind: "image", Spec: t.Image, Flag: "--image " + shellQuote(t.Image)}
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
	env := map[string]string{"LOOM_BRIDGE_LISTEN": "0.0.0.0:" + t.port()}
	for k, v := range t.Env {
		env[k] = v
	}
	deadline, ok := ctx.Deadline()
	startup := 60 * time.Second
	if ok {
		startup = time.Until(deadline)
	}
	opts := []tc.ContainerCustomizer{
		tc.WithExposedPorts(port), tc.WithEnv(env), tc.WithLogger(tclog.NewNoopLogger()),
		tc.WithWaitStrategy(wait.ForHTTP("/").WithPort(port).WithMethod(http.MethodPost).
			WithHeaders(map[string]string{"Content-Type": "application/json"}).
			WithBody(strings.NewReader(handshakeProbe)).
			WithResponseMatcher(func(body io.Reader) bool {
				b, _ := io.ReadAll(body)
				return bytes.Contains(b, []byte(`"result"`))
			}).
			WithPollInterval(100 * time.Millisecond).WithStartupTimeout(startup)),
	}
	if t.Cmd != nil {
		opts = append(opts, tc.WithCmd(t.Cmd...))
	}
	ctr, err := tc.Run(ctx, t.Image, opts...)
	run := &Running{Identity: t.Describe(), Stop: func(context.Context) error { return nil }}
	if ctr != nil {
		ic := &imageContainer{ctr: ctr}
		run.Identity.ContainerID = ctr.GetContainerID()
		run.Logs = ic.logs
		run.Stop = ic.remove
		run.Pauser = ic
		if cli, cerr := tc.NewDockerClientWithOpts(ctx); cerr == nil {
			ic.cli = cli.Client
			if ins, ierr := cli.ImageInspect(ctx, t.Image); ierr == nil {
				run.Identity.ImageID = ins.ID
				run.Identity.RepoDigests = ins.RepoDigests
			}
		}
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
	ep, err := ctr.PortEndpoint(ctx, port, "http")
	if err != nil {
		return run, fmt.Errorf("image %s: mapped port %s: %w", t.Image, port, err)
	}
	run.URL = ep + "/"
	run.Identity.URL = run.URL
	return run, nil
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

func (c *imageContainer) Pause(ctx context.Context) error {
	if c.cli == nil {
		return errors.New("no docker client")
	}
	_, err := c.cli.ContainerPause(ctx, c.ctr.GetContainerID(), client.ContainerPauseOptions{})
	return err
}

func (c *imageContainer) Resume(ctx context.Context) error {
	if c.cli == nil {
		return errors.New("no docker client")
	}
	_, err := c.cli.ContainerUnpause(ctx, c.ctr.GetContainerID(), client.ContainerUnpauseOptions{})
	return err
}
