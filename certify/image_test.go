package certify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
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
	if !rep.Certified() {
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
	assertRemoved(t, rep.Target.ContainerID)
	if rep.Handshake == nil || rep.Handshake.Implementation.Name != "loom-conform sqlite" {
		t.Errorf("handshake = %+v, want the sqlite bridge", rep.Handshake)
	}
}

// A broken store inside the image is rejected by the check meant for it, with its clause.
func TestCertifyBrokenImage(t *testing.T) {
	img := certifytest.BridgeImage(t)
	// A defect a required check catches: lossy-numbers breaks only a recommendation (I-STORE-25).
	var lossy broken.Store[spi.EventStore]
	for _, b := range broken.EventStores() {
		if b.Name == "dropped-metadata" {
			lossy = b
		}
	}
	if lossy.Catch == "" {
		t.Fatal("kits/broken has no dropped-metadata store")
	}
	rep, err := certify.Run(context.Background(),
		certify.ImageTarget{Image: img, Cmd: []string{"--backend", "broken:" + lossy.Name}},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^(bridge/handshake|" + lossy.Catch + "|eventstore/append-conflict)$"})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := find(rep, lossy.Catch)
	if !ok || c.Verdict != kits.Fail || !c.Blocking || !contains(c.Clauses, "I-STORE-3") || rep.Certified() {
		t.Fatalf("%s = %+v (certified %v), want a blocking fail naming I-STORE-3", lossy.Catch, c, rep.Certified())
	}
	if c, _ := find(rep, "eventstore/append-conflict"); c.Verdict != kits.Pass {
		t.Errorf("append-conflict = %s, want pass (only metadata is broken)", c.Verdict)
	}
	if !strings.Contains(rep.Logs, "listening http://") {
		t.Errorf("report logs %q, want the container's output", rep.Logs)
	}
	assertRemoved(t, rep.Target.ContainerID)
}

// With faults, the container is paused and its connections cut mid-workload; the SQLite store
// keeps every acknowledged append and tears no batch (I-BRIDGE-7).
func TestFaultsImage(t *testing.T) {
	img := certifytest.BridgeImage(t)
	rep, err := certify.Run(context.Background(), certify.ImageTarget{Image: img},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^faults/", Faults: true, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"faults/cut-connections", "faults/pause-resume"} {
		if c, ok := find(rep, id); !ok || c.Verdict != kits.Pass {
			t.Errorf("%s = %+v, want pass", id, c)
		}
	}
}

// An image whose bridge never answers is reported, not waited on forever, and is removed.
func TestCertifyImageThatNeverAnswers(t *testing.T) {
	img := certifytest.BridgeImage(t)
	rep, err := certify.Run(context.Background(), certify.ImageTarget{Image: img, Cmd: []string{"--backend", "no-such-backend"}},
		certify.Config{Kinds: []string{"eventstore"}, StartTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != certify.TargetFailed || !strings.Contains(rep.TargetError, "no-such-backend") || len(rep.Checks) != 0 {
		t.Errorf("Run(image that exits) = %s, target error %q, %d checks; want target-failed quoting the container's error, no check (I-CERT-4)", rep.Verdict, rep.TargetError, len(rep.Checks))
	}
	assertRemoved(t, rep.Target.ContainerID)
}

// assertRemoved checks that the container is gone.
func assertRemoved(t *testing.T, id string) {
	t.Helper()
	if id == "" {
		t.Fatal("no container id in the report")
	}
	cli, err := tc.NewDockerClientWithOpts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{}); err == nil {
		t.Errorf("container %s still exists after the run, want it removed", id)
	}
}

// Certifying every kit against the SQLite image, image build excluded, within the 60 s budget:
// reports seconds per run and the ratio to the budget (budget-ratio < 1 meets it).
func BenchmarkCertifyAllSQLiteImage(b *testing.B) {
	img := certifytest.BridgeImage(b)
	for b.Loop() {
		start := time.Now()
		rep, err := certify.Run(context.Background(), certify.ImageTarget{Image: img}, certify.Config{Kinds: certify.Kinds()})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Certified() {
			b.Fatalf("not certified: %v", failing(rep))
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/certify")
		b.ReportMetric(time.Since(start).Seconds()/60, "budget-ratio")
	}
}
