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

// latencySamples is how many round trips of each kernel the latency measure takes, interleaved
// (target, reference, target, …) so that the machine's load weighs on both alike.
const latencySamples = 15

// A kernel is slow when its median round trip is above slowFactor times the reference kernel's
// and slowFloor above it: a server that does not set TCP_NODELAY costs ~40 ms a call where the
// reference answers in well under one.
const (
	slowFactor = 10
	slowFloor  = 5 * time.Millisecond
)

// measureLatency measures the median round trip of wire.handshake to the target and to the
// reference kernel, served in this process over loopback (the same machine, the same moment).
func measureLatency(ctx context.Context, target *carrier.Client) (*Latency, error) {
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
	var got, want []time.Duration
	for range latencySamples {
		for _, k := range []struct {
			c   *carrier.Client
			out *[]time.Duration
		}{{target, &got}, {rc, &want}} {
			t0 := time.Now()
			if err := k.c.Call(ctx, carrier.MethodHandshake, map[string]any{}, nil); err != nil {
				return nil, err
			}
			*k.out = append(*k.out, time.Since(t0))
		}
	}
	return judgeLatency(got, want), nil
}

// judgeLatency compares the kernel's round trips with the reference's: the medians, and slow when
// the kernel's is above slowFactor times the reference's and slowFloor above it.
func judgeLatency(got, want []time.Duration) *Latency {
	m, r := median(got), median(want)
	lat := &Latency{Samples: len(got), MedianMs: ms(m), ReferenceMs: ms(r)}
	if r > 0 {
		lat.SlowerByFactor = float64(m) / float64(r)
	}
	lat.Slow = m > slowFactor*r && m-r > slowFloor
	return lat
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// SlowNote tells a slow kernel why its checks may run out of time, with the figures.
func SlowNote(l *Latency, limit time.Duration) string {
	return fmt.Sprintf("slow kernel: its median round trip (wire.handshake, %d samples) is %.1f ms, the reference kernel's on this machine %.2f ms (%.0f× slower); "+
		"a check makes tens to hundreds of calls, so at this speed checks may run out of their time limit (%s each) and end unknown. "+
		"A server that does not set TCP_NODELAY (Nagle's algorithm with delayed acks) costs about 40 ms a call; raise the limit with --timeout",
		l.Samples, l.MedianMs, l.ReferenceMs, l.SlowerByFactor, limit)
}
