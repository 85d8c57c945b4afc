package certifytest

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

func pingOptions() client.PingOptions { return client.PingOptions{} }

// buildImage sends dir (flat: the binary and the Dockerfile) as the build context and tags the
// result. The legacy builder and BuildKit both accept it; nothing is pulled for FROM scratch.
func buildImage(ctx context.Context, dir, tag string) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		info, _ := e.Info()
		if err := tw.WriteHeader(&tar.Header{Name: e.Name(), Mode: int64(info.Mode().Perm()), Size: int64(len(b))}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	res, err := cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{tag}, Remove: true, ForceRemove: true, Dockerfile: "Dockerfile",
		Labels: map[string]string{ImageLabel: "1"}})
	if err != nil {
		return fmt.Errorf("docker build %s: %w", tag, err)
	}
	defer res.Body.Close()
	dec := json.NewDecoder(res.Body)
	var log bytes.Buffer
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("docker build %s: reading the build output: %w", tag, err)
		}
		log.WriteString(m.Stream)
		if m.Error != "" {
			return fmt.Errorf("docker build %s: %s\n%s", tag, m.Error, log.String())
		}
	}
}

// RemoveImage removes a bridge image the tests built, and its untagged parents.
func RemoveImage(ctx context.Context, tag string) error {
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	_, err = cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	return err
}
