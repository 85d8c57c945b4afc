package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/spf13/cobra"
)

func newServeStoreCmd() *cobra.Command {
	var (
		backend certify.Backend
		listen  string
		opts    bridge.ServerOptions
	)
	cmd := &cobra.Command{
		Use:   "serve-store --backend memory|sqlite|postgres [--listen ADDR]",
		Short: "Serve one of the reference stores over the store bridge protocol (docs/bridge.md)",
		Long: `serve-store answers the store bridge protocol (JSON-RPC 2.0 over HTTP, docs/bridge.md) for one
of the reference stores, serving all seven seams: EventStore, SnapshotStore, ArchiveStore,
BranchRegistry, ContentStore (putStream in its chunked form), DurableStateStore and ReadModelStore.
The first line of standard output is its address:

  listening http://127.0.0.1:PORT/

It listens on loopback unless --listen (or LOOM_BRIDGE_LISTEN) says otherwise, and stops on
SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				listen = os.Getenv("LOOM_BRIDGE_LISTEN")
			}
			if listen == "" {
				listen = "127.0.0.1:0"
			}
			backend.Version = toolVersion
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			octx, cancel := context.WithTimeout(ctx, time.Minute)
			stores, closeStores, err := certify.OpenBackend(octx, backend)
			cancel()
			if err != nil {
				return badInput("serve-store: %v", err)
			}
			defer closeStores()
			srv, err := bridge.NewServer(stores, opts)
			if err != nil {
				return badInput("serve-store: %v", err)
			}
			return listenAndServe(ctx, cmd.OutOrStdout(), "serve-store", listen, srv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&backend.Name, "backend", "", "store to serve: "+strings.Join(certify.Backends(), ", "))
	f.StringVar(&listen, "listen", "", "address to listen on (default 127.0.0.1:0, a free loopback port; env LOOM_BRIDGE_LISTEN)")
	f.StringVar(&backend.DSN, "dsn", "", "PostgreSQL DSN (postgres backend)")
	f.StringVar(&backend.Schema, "schema", "loom", "PostgreSQL schema (postgres backend; created if missing)")
	f.StringVar(&backend.File, "file", "", "SQLite database file (sqlite backend; default a temporary file removed on exit)")
	f.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", bridge.DefaultMaxRequestBytes, "largest request body accepted")
	f.DurationVar(&opts.CallTimeout, "call-timeout", bridge.DefaultCallTimeout, "deadline of each store call")
	f.Int64Var(&opts.MaxStreamBytes, "max-stream-bytes", bridge.DefaultMaxStreamBytes, "largest chunked ContentStore stream accepted (a larger one is refused and aborted)")
	_ = cmd.MarkFlagRequired("backend")
	_ = cmd.RegisterFlagCompletionFunc("backend", fixedCompletion(certify.Backends()...))
	return cmd
}

// listenAndServe listens on addr, prints "listening http://ADDR/" as the first line of stdout (how
// callers that start this binary learn its address) and serves h until ctx ends.
func listenAndServe(ctx context.Context, stdout io.Writer, verb, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return badInput("%s: --listen %s: %v", verb, addr, err)
	}
	if _, err := fmt.Fprintf(stdout, "listening http://%s/\n", ln.Addr()); err != nil {
		return err
	}
	if err := bridge.Serve(ctx, ln, h); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	return nil
}
