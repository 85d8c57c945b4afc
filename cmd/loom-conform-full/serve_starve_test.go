package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/certify/certifytest"
	"github.com/loom-kernel/loom-conform/internal/servetest"
)

// patience is how long a fresh client's call may take beside an attack before the test calls it
// unanswered: far past an answer's time on a loaded machine, and short of the 28.5–91 s and the
// "never" the servers took when a few slow clients held what every call waited for.
const patience = 20 * time.Second

// Reference: I-NET-4, I-NET-20 — no client that is not sending or not reading holds what others
// wait for: beside 4 uploads declaring 16 MiB and trickling a byte a second, 64 open streams, and 12
// clients reading a 12 MiB answer at 4 KB/s, a fresh client's handshake and its read of a 1-event
// execution are answered, on serve-store (memory, sqlite) and serve-kernel. The latencies are
// logged (docs/bridge.md, "Slow clients give way"), never compared with a clock.
func TestServersAnswerBesideStarvingClients(t *testing.T) {
	bin := certifytest.Binary(t)
	for _, target := range servetest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			s, err := servetest.Start(bin, target.Args...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Stop()
			calls, err := target.Setup(context.Background(), s, 64)
			if err != nil {
				t.Fatal(err)
			}
			took := map[string][]string{}
			var order []string
			for _, a := range servetest.Siege(s, target, calls, patience) {
				if a.Err != nil {
					t.Errorf("%s [I-NET-4, I-NET-20]: %s beside %s = %v, want it answered", target.Name, a.Call, a.Attack, a.Err)
				}
				if _, ok := took[a.Attack]; !ok {
					order = append(order, a.Attack)
				}
				took[a.Attack] = append(took[a.Attack], fmt.Sprintf("%s %v", a.Call, a.Took.Round(time.Millisecond)))
			}
			for _, at := range order {
				t.Logf("%s beside %s: %s", target.Name, at, strings.Join(took[at], ", "))
			}
		})
	}
}
