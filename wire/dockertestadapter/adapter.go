package dockertestadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/wire/target"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Target is a bridge container a dockertest pool started; it is a target.Target, so
// certify.Run(ctx, dockertestadapter.Target{Pool: pool, Resource: res}, cfg) certifies it. Port is the container port the bridge
// listens on ("8080/tcp" when empty). Token is the bearer token the bridge was started with
// (a bridge listening beyond the container's loopback requires one: start the container with
// LOOM_CONFORM_TOKEN in its environment and give the same value here). The container stays the
// suite's: Stop leaves it running unless Purge is set.
type Target struct {
	Pool     *dockertest.Pool
	Resource *dockertest.Resource
	Port     string
	Purge    bool
	Token    string
}

func (t Target) port() string {
	if t.Port == "" {
		return target.DefaultBridgePort + "/tcp"
	}
	if !strings.Contains(t.Port, "/") {
		return t.Port + "/tcp"
	}
	return t.Port
}

func (t Target) image() string {
	if t.Resource != nil && t.Resource.Container != nil && t.Resource.Container.Config != nil {
		return t.Resource.Container.Config.Image
	}
	return "?"
}

// Describe names the container's image.
func (t Target) Describe() target.Identity {
	return target.Identity{Kind: "dockertest", Spec: t.image(), Flag: "--image " + t.image()}
}

// Start finds the published port; certify then waits for the handshake.
func (t Target) Start(ctx context.Context) (*target.Running, error) {
	if t.Pool == nil || t.Resource == nil || t.Resource.Container == nil {
		return nil, errors.New("dockertestadapter: a pool and a started resource are required")
	}
	hp := t.Resource.GetHostPort(t.port())
	if hp == "" {
		return nil, fmt.Errorf("dockertestadapter: container %s publishes no %s (add it to RunOptions.ExposedPorts)", t.Resource.Container.ID, t.port())
	}
	hp = strings.Replace(hp, "localhost:", "127.0.0.1:", 1)
	id := t.Describe()
	id.ContainerID = t.Resource.Container.ID
	id.ImageID = t.Resource.Container.Image
	if img, err := t.Pool.Client.InspectImage(t.Resource.Container.Image); err == nil {
		id.RepoDigests = img.RepoDigests
	}
	id.URL = "http://" + hp + "/"
	c := container{pool: t.Pool, id: t.Resource.Container.ID}
	return &target.Running{URL: id.URL, Identity: id, Token: t.Token, Logs: c.logs, Pauser: c,
		Stop: func(context.Context) error {
			_ = c.Resume(context.Background())
			if t.Purge {
				return t.Pool.Purge(t.Resource)
			}
			return nil
		}}, nil
}

type container struct {
	pool *dockertest.Pool
	id   string
}

func (c container) logs(ctx context.Context) string {
	var out bytes.Buffer
	err := c.pool.Client.Logs(dc.LogsOptions{Context: ctx, Container: c.id, OutputStream: &out, ErrorStream: &out, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	s := out.String()
	if len(s) > 256<<10 {
		s = s[len(s)-256<<10:]
	}
	return s
}

// Pause freezes the container, retrying a freeze the runtime could not complete
// (target.PauseWithRetry).
func (c container) Pause(ctx context.Context) error {
	return target.PauseWithRetry(ctx, func(context.Context) error { return c.pool.Client.PauseContainer(c.id) }, c.Resume)
}

func (c container) Resume(context.Context) error { return c.pool.Client.UnpauseContainer(c.id) }
