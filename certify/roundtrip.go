package certify

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Latency is the median round trip of a cheap call (the handshake) to the target and to the
// reference served in this process over loopback (the same machine, the same moment), measured
// before the checks. Every certificate reports it.
type Latency struct {
	// Call is the call measured: bridge.handshake for a store bridge, wire.handshake for a kernel.
	Call           string  `json:"call"`
	Samples        int     `json:"samples"`
	MedianMs       float64 `json:"medianMs"`
	ReferenceMs    float64 `json:"referenceMedianMs"`
	Slow           bool    `json:"slow"`
	SlowerByFactor float64 `json:"slowerByFactor"`
	// Nagle says the median lies where Nagle's algorithm meeting delayed ACKs puts it (about
	// 40 ms a call): the likely cause, named on the certificate.
	Nagle bool `json:"nagleLikely,omitempty"`
}

// latencySamples is how many round trips of each side the measure takes, interleaved (target,
// reference, target, …) so that the machine's load weighs on both alike.
const latencySamples = 15

// A target is slow when its median round trip is above slowFactor times the reference's and
// slowFloor above it: a server that does not set TCP_NODELAY costs ~40 ms a call where the
// reference answers in well under one, while a separate process on a loaded machine may take a
// few milliseconds more than the in-process reference without being slow.
const (
	slowFactor = 10
	slowFloor  = 15 * time.Millisecond
)

// Delayed ACKs hold a lone segment for 40 ms on Linux (up to 200 ms elsewhere); a median in this
// band, far above the reference's, is most likely a server writing a response in two sends with
// Nagle's algorithm on.
const (
	nagleLow  = 30 * time.Millisecond
	nagleHigh = 60 * time.Millisecond
)

// measureRoundTrip measures the median round trip of call to the target and to the reference.
func measureRoundTrip(ctx context.Context, name string, target, reference func(context.Context) error) (*Latency, error) {
	var got, want []time.Duration
	for range latencySamples {
		for _, k := range []struct {
			call func(context.Context) error
			out  *[]time.Duration
		}{{target, &got}, {reference, &want}} {
			t0 := time.Now()
			if err := k.call(ctx); err != nil {
				return nil, err
			}
			*k.out = append(*k.out, time.Since(t0))
		}
	}
	l := judgeLatency(got, want)
	l.Call = name
	return l, nil
}

// kernelRoundTrip measures wire.handshake on the kernel and on the reference kernel.
func kernelRoundTrip(ctx context.Context, target *carrier.Client) (*Latency, error) {
	ref, _, err := carrier.NewProfile(memory.NewEventStore(), false, carrier.Options{})
	if err != nil {
		return nil, err
	}
	url, stop, err := bridge.Start("127.0.0.1:0", ref)
	if err != nil {
		return nil, err
	}
	defer stop()
	rc := carrier.NewClient(url, 10*time.Second)
	defer rc.Close()
	call := func(c *carrier.Client) func(context.Context) error {
		return func(ctx context.Context) error { return c.Call(ctx, carrier.MethodHandshake, map[string]any{}, nil) }
	}
	return measureRoundTrip(ctx, carrier.MethodHandshake, call(target), call(rc))
}

// bridgeRoundTrip measures bridge.handshake on the bridge at url and on the reference bridge (the
// memory stores).
func bridgeRoundTrip(ctx context.Context, url, token string) (*Latency, error) {
	srv, err := bridge.NewServer(bridge.Stores{Implementation: bridge.Implementation{Name: "loom-conform reference", Version: "-"},
		EventStore: memory.NewEventStore()}, bridge.ServerOptions{})
	if err != nil {
		return nil, err
	}
	refURL, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		return nil, err
	}
	defer stop()
	tc, err := bridge.NewClient(url, bridge.ClientOptions{CallTimeout: 10 * time.Second, Token: token})
	if err != nil {
		return nil, err
	}
	defer tc.Close()
	rc, err := bridge.NewClient(refURL, bridge.ClientOptions{CallTimeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	call := func(c *bridge.Client) func(context.Context) error {
		return func(ctx context.Context) error { _, err := c.FetchHandshake(ctx); return err }
	}
	return measureRoundTrip(ctx, bridge.MethodHandshake, call(tc), call(rc))
}

// judgeLatency compares the target's round trips with the reference's: the medians, slow when the
// target's is above slowFactor times the reference's and slowFloor above it, and Nagle when a slow
// median lies in the delayed-ACK band.
func judgeLatency(got, want []time.Duration) *Latency {
	m, r := median(got), median(want)
	lat := &Latency{Samples: len(got), MedianMs: ms(m), ReferenceMs: ms(r)}
	if r > 0 {
		lat.SlowerByFactor = float64(m) / float64(r)
	}
	lat.Slow = m > slowFactor*r && m-r > slowFloor
	lat.Nagle = lat.Slow && m >= nagleLow && m <= nagleHigh
	return lat
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// subject names what answered the measured call: "kernel" or "bridge".
func (l *Latency) subject() string {
	if l.Call == carrier.MethodHandshake {
		return "kernel"
	}
	return "bridge"
}

// RoundTripLine is the certificate's line: the target's median and the reference's.
func RoundTripLine(l *Latency) string {
	return fmt.Sprintf("median %.2f ms (%s, %d samples; the reference %s %.2f ms on this machine)", l.MedianMs, l.Call, l.Samples, l.subject(), l.ReferenceMs)
}

// SlowNote tells a slow target why its checks may run out of time, with the figures and, for a
// median near 40 ms, the likely cause.
func SlowNote(l *Latency, limit time.Duration) string {
	s := fmt.Sprintf("slow %s: its median round trip (%s, %d samples) is %.1f ms, the reference %s's on this machine %.2f ms (%.0f× slower); "+
		"a check makes tens to hundreds of calls, so at this speed checks may run out of their time limit (%s each) and end unknown. ",
		l.subject(), l.Call, l.Samples, l.MedianMs, l.subject(), l.ReferenceMs, l.SlowerByFactor, limit)
	if l.Nagle {
		return s + "A median near 40 ms is the mark of Nagle's algorithm meeting delayed ACKs: the server writes each response in two sends " +
			"(headers, then body) and the second waits for the client's ACK. Set TCP_NODELAY on the server's sockets, or write each response in one send " +
			"(docs/bridge.md, \"Round trip\")"
	}
	return s + "A server that does not set TCP_NODELAY (Nagle's algorithm with delayed ACKs) costs about 40 ms a call; otherwise raise the limit with --timeout"
}
