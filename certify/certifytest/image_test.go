package certifytest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	tc "github.com/testcontainers/testcontainers-go"
)

func TestMain(m *testing.M) { certifytest.Main(m) }

// Each test binary builds its own bridge image tag, labelled, and RemoveImage (which Main calls at
// the end) leaves nothing behind: no tag, no dangling parent.
func TestBridgeImageRemoved(t *testing.T) {
	tag := certifytest.BridgeImage(t)
	if !strings.HasPrefix(tag, certifytest.ImageRepo+":test-") {
		t.Fatalf("BridgeImage = %q, want a per-binary tag of %s", tag, certifytest.ImageRepo)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	insp, err := cli.ImageInspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	if insp.Config == nil || insp.Config.Labels[certifytest.ImageLabel] != "1" {
		t.Errorf("image %s lacks the label %s", tag, certifytest.ImageLabel)
	}
	if err := certifytest.RemoveImage(ctx, tag); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ImageInspect(ctx, insp.ID); err == nil {
		t.Errorf("image %s (%s) still exists after RemoveImage", tag, insp.ID)
	}
}
