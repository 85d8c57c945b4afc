package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/spf13/cobra"
)

func newServeKernelCmd() *cobra.Command {
	var (
		storeArg, dsn, broken string
		deterministic, wave2  bool
		delay                 time.Duration
		opts                  carrier.Options
		nf                    netFlags
	)
	cmd := &cobra.Command{
		Use:   "serve-kernel [--listen ADDR] [--store memory|sqlite:FILE] [--dsn DSN] [--deterministic] [--wave2]",
		Short: "Serve the reference kernel over the wire kernel ABI (docs/wire.md)",
		Long: `serve-kernel answers the wire kernel ABI (ADR 0026: JSON-RPC 2.0 over HTTP, docs/wire.md) for the
reference kernel, so a client in any language can start, drive, suspend, resume and replay
executions. The kernel is served with the conformance profile (the fake tools echo, fail, meter,
fetch, shape and forbidden, under the authorize, meter, validate and egress rings) that
` + "`certify kernel`" + ` expects. The first line of standard output is its address:

  listening http://127.0.0.1:PORT/

The event log is kept in memory unless --store sqlite:FILE or --dsn (PostgreSQL) says otherwise;
in memory it holds at most --max-events events (finished executions are deleted to make room,
the oldest first), at most --max-live executions run at once and at most --max-flows flow ids
are registered (docs/wire.md, "What the kernel holds").
--deterministic uses a fixed clock and sequential ids, so the same calls write byte-identical
logs (the acceptance clients compare against an in-process run this way). --wave2 turns on the
Wave 2 feature flags (continueAsNew, receive and select, with execution.deliver): the handshake
advertises them and ` + "`certify kernel`" + ` then drives the Wave 2 goldens too. The kernel also
serves the test-only conformance extension (conformance.clock, conformance.crash; docs/wire.md),
which lets certify drive the crash and sleep goldens. --broken NAME serves one of the deliberately
broken kernels certify rejects, one defect each:

  ` + strings.Join(kernelkit.BrokenNames(), "\n  ") + `

It listens on loopback unless --listen (or LOOM_KERNEL_LISTEN) says otherwise, and stops on
SIGINT or SIGTERM. --delay D answers every request D later, a slow kernel for stability runs
(make stability certifies the reference kernel with and without it). The kernel's numbers are IEEE doubles (docs/wire.md): a number in params a
double cannot hold exactly is refused naming its field, never rounded.
` + netHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nf.resolve("LOOM_KERNEL_LISTEN")
			opts.Token, opts.AllowedHosts = nf.token, nf.allowHosts
			backend := certify.Backend{Name: "memory", Version: toolVersion}
			switch {
			case dsn != "":
				backend.Name, backend.DSN, backend.Schema = "postgres", dsn, "loom"
			case storeArg == "" || storeArg == "memory":
			case strings.HasPrefix(storeArg, "sqlite:") && len(storeArg) > len("sqlite:"):
				backend.Name, backend.File = "sqlite", strings.TrimPrefix(storeArg, "sqlite:")
			default:
				return cliverb.BadInput("serve-kernel: --store %q: want memory or sqlite:FILE", storeArg)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			octx, cancel := context.WithTimeout(ctx, time.Minute)
			stores, closeStores, err := certify.OpenBackend(octx, backend)
			cancel()
			if err != nil {
				return cliverb.BadInput("serve-kernel: %v", err)
			}
			defer closeStores()
			if wave2 {
				opts.Features = carrier.Wave2()
			}
			if backend.Name != "memory" {
				opts.MaxEvents = 0 // the log is on disk: the bound is the disk's
			}
			opts.Implementation = carrier.Implementation{Name: "loom-conform reference kernel", Version: toolVersion}
			var c http.Handler
			if broken != "" {
				opts.Implementation.Name = "loom-conform broken kernel " + broken
				c, err = kernelkit.NewBroken(broken, stores.EventStore, opts)
			} else {
				c, _, err = carrier.NewProfile(stores.EventStore, deterministic, opts)
			}
			if err != nil {
				return cliverb.BadInput("serve-kernel: %v", err)
			}
			if delay < 0 || delay > time.Minute {
				return cliverb.BadInput("serve-kernel: --delay %v: want 0 to 1m", delay)
			}
			if delay > 0 {
				c = carrier.Delayed(c, delay)
			}
			return nf.listenAndServe(ctx, cmd, "serve-kernel", c)
		},
	}
	f := cmd.Flags()
	nf.register(cmd, "LOOM_KERNEL_LISTEN")
	f.StringVar(&storeArg, "store", "memory", "event log: memory, or sqlite:FILE")
	f.StringVar(&dsn, "dsn", "", "PostgreSQL DSN for the event log (instead of --store); the DSN's password never appears in any output")
	f.BoolVar(&deterministic, "deterministic", false, "fixed clock and sequential ids: the same calls write byte-identical logs")
	f.BoolVar(&wave2, "wave2", false, "turn on the Wave 2 feature flags: continueAsNew, receive and select (with execution.deliver)")
	f.StringVar(&broken, "broken", "", "serve a deliberately broken kernel (certify's self-test; the names are listed above)")
	f.DurationVar(&delay, "delay", 0, "answer every request this much later (e.g. 400us: a slow kernel, as a Python http.server is; make stability certifies one)")
	f.DurationVar(&opts.Lease, "lease", 30*time.Second, "how long a silent driver keeps its execution before another may take it over")
	f.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", bridge.DefaultMaxRequestBytes, "largest request body accepted")
	f.Int64Var(&opts.MaxEvents, "max-events", carrier.DefaultMaxEvents, "events the in-memory log holds at most (--store memory; 0: no bound): at the bound a new execution deletes finished ones, the oldest first, and is refused (-32028) when unfinished ones hold it all")
	f.IntVar(&opts.MaxLive, "max-live", carrier.DefaultMaxLive, "executions with a live run at once (0: no bound); past it a call that would start one is refused (-32028)")
	f.IntVar(&opts.MaxFlows, "max-flows", carrier.DefaultMaxFlows, "flow ids execution.start registers at most (0: no bound); a start of a new one past it is refused (-32028)")
	return cmd
}
