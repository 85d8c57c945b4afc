package certify_test

import (
	"context"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/kits"
)

// The SQLite bridge, built into a FROM scratch image, is certified through testcontainers: every
// kit passes, the report names the image digest, and the container is removed.
func TestCertifyImage(t *testing.T) {
	img := certifytest.BridgeImage(t)
	ctx := context.Background()
	rep, err := certify.Run(ctx, certify.ImageTarget{Image: img}, certify.Config{Kinds: certify.Kinds(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Certified {
		t.Errorf("Run(image %s).Certified = false, want true; problems %v", img, rep.Problems)
		for _, c := range rep.Checks {
			if c.Verdict != kits.Pass {
				t.Logf("%s %s: %s", c.Verdict, c.ID, c.Message)
			}
		}
	}
	if rep.Target.ImageID == "" || rep.Target.ContainerID == "" {
		t.Errorf("Run(image).Target = %+v, want image and container ids", rep.Target)
	}
	if rep.Handshake == nil || rep.Handshake.Implementation.Name != "loom-conform sqlite" {
		t.Errorf("handshake = %+v, want the sqlite bridge", rep.Handshake)
	}
}
