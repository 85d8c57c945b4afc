package certify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// hangsOnce is a store whose first read hangs well past the check's time limit, then answers.
type hangsOnce struct {
	*memory.EventStore
	reads *atomic.Int64
}

func (s hangsOnce) Read(ctx context.Context, id string) ([]spi.Envelope, error) {
	if s.reads.Add(1) == 1 {
		time.Sleep(3 * time.Second)
	}
	return s.EventStore.Read(ctx, id)
}

// A check the harness ran again is said to have been on every surface — the certificate, the
// summary, JSON, HTML and JUnit — with what its first run ended in, which names the call that did
// not return (I-CERT-60, I-CERT-61).
func TestRerunSaidOnEverySurface(t *testing.T) {
	st := bridge.Stores{Implementation: bridge.Implementation{Name: "hangs-once", Version: "1"},
		EventStore: hangsOnce{memory.NewEventStore(), &atomic.Int64{}}}
	url := serve(t, st, nil)
	rep, err := certify.Run(context.Background(), certify.URLTarget{URL: url},
		certify.Config{Kinds: []string{"eventstore"}, Run: "^eventstore/read-unknown-empty$", Seed: 3, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := find(rep, "eventstore/read-unknown-empty")
	if !ok || c.Verdict != kits.Pass || c.Rerun == nil || c.Rerun.FirstVerdict != kits.Unknown {
		t.Fatalf("check = %+v, want a pass on its second run after an unknown first", c)
	}
	if !strings.Contains(c.Rerun.FirstMessage, `the call Read("`) || !strings.Contains(c.Rerun.FirstMessage, "did not return") {
		t.Errorf("first run %q, want it to name the bridge call that did not return", c.Rerun.FirstMessage)
	}
	if rep.Summary.Reruns != 1 {
		t.Errorf("summary reruns = %d, want 1", rep.Summary.Reruns)
	}
	var cert, sum, js, html, junit bytes.Buffer
	for _, w := range []struct {
		write func() error
		buf   *bytes.Buffer
		want  string
	}{
		{func() error { return certify.WriteCertificate(&cert, rep) }, &cert, "re-run:         1 check ran again"},
		{func() error { return certify.WriteSummary(&sum, rep) }, &sum, "RE-RUN eventstore/read-unknown-empty (pass on its second run)"},
		{func() error { return json.NewEncoder(&js).Encode(rep) }, &js, `"rerun":{"why":"no verdict while the target answered","firstVerdict":"unknown"`},
		{func() error { return certify.WriteHTML(&html, rep) }, &html, "re-run: no verdict while the target answered"},
		{func() error { return certify.WriteJUnit(&junit, rep) }, &junit, `name="loom.reruns" value="eventstore/read-unknown-empty"`},
	} {
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.buf.String(), w.want) {
			t.Errorf("a surface lacks %q:\n%s", w.want, w.buf.String())
		}
	}
	if !strings.Contains(junit.String(), "re-run: no verdict while the target answered") {
		t.Errorf("the JUnit case does not say it was re-run:\n%s", junit.String())
	}
}
