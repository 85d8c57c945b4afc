package dockertestadapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/wire/dockertestadapter"
	"github.com/ory/dockertest/v3"
)

// A suite built on a dockertest pool certifies the bridge container it started.
func TestCertifyDockertestContainer(t *testing.T) {
	img := certifytest.BridgeImage(t)
	repo, tag, _ := strings.Cut(img, ":")
	pool, err := dockertest.NewPool("")
	if err != nil {
		t.Fatal(err)
	}
	res, err := pool.RunWithOptions(&dockertest.RunOptions{Repository: repo, Tag: tag, ExposedPorts: []string{"8080/tcp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pool.Purge(res) })
	rep, err := dockertestadapter.Certify(context.Background(), pool, res,
		certify.Config{Kinds: []string{"eventstore", "branchregistry"}, Faults: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified {
		for _, c := range rep.Checks {
			if c.Verdict != kits.Pass && c.Verdict != kits.Skip {
				t.Logf("%s %s: %s", c.Verdict, c.ID, c.Message)
			}
		}
		t.Fatalf("Certify(dockertest container) not certified: %v", rep.Problems)
	}
	if rep.Target.ContainerID != res.Container.ID || !strings.Contains(rep.Logs, "listening http://") {
		t.Errorf("report target %+v / logs %q, want the container and its output", rep.Target, rep.Logs)
	}
	for _, c := range rep.Checks {
		if c.ID == "faults/pause-resume" && c.Verdict != kits.Pass {
			t.Errorf("faults/pause-resume through dockertest = %s %s", c.Verdict, c.Message)
		}
	}
}
