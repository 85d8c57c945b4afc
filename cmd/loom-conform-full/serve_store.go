package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/internal/cliverb"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	storespg "github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/spf13/cobra"
)

func newServeStoreCmd() *cobra.Command {
	var (
		backend certify.Backend
		nf      netFlags
		opts    bridge.ServerOptions
		broken  string
	)
	cmd := &cobra.Command{
		Use:   "serve-store --backend memory|sqlite|postgres | --broken NAME [--listen ADDR]",
		Short: "Serve one of the reference stores over the store bridge protocol (docs/bridge.md)",
		Long: `serve-store answers the store bridge protocol (JSON-RPC 2.0 over HTTP, docs/bridge.md) for one
of the reference stores, serving all seven seams: EventStore, SnapshotStore, ArchiveStore,
BranchRegistry, ContentStore (putStream in its chunked form), DurableStateStore and ReadModelStore.
The first line of standard output is its address:

  listening http://127.0.0.1:PORT/

It listens on loopback unless --listen (or LOOM_BRIDGE_LISTEN) says otherwise, and stops on
SIGINT or SIGTERM. The postgres backend's DSN comes from --dsn or, kept off the command line,
from LOOM_CONFORM_POSTGRES_DSN; no output ever shows its password. The sqlite backend answers a
write once it is in the database's write-ahead log: it survives the process being killed, not a
power loss (docs/bridge.md, "What an acknowledged write survives").

--broken NAME serves the memory stores with one seam replaced by a deliberately broken store,
one defect each, which certify rejects with the check meant for it (certify --builtin
broken:NAME does the same in process). A NAME several seams share is KIND/NAME:

` + certify.BrokenStoreList(100) + `
` + netHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			nf.resolve("LOOM_BRIDGE_LISTEN")
			switch {
			case broken != "" && backend.Name != "" && backend.Name != "memory":
				return cliverb.BadInput("serve-store: --broken serves memory stores with one broken seam: it takes no --backend %s", backend.Name)
			case broken != "":
				if _, err := certify.LookupBrokenStore(broken); err != nil {
					return cliverb.BadInput("serve-store: --broken %s: %v", broken, err)
				}
				backend.Name = "broken:" + broken
			case backend.Name == "":
				return cliverb.BadInput("serve-store: name the store: --backend %s, or --broken NAME", strings.Join(certify.Backends(), "|"))
			}
			if backend.Name == "postgres" && backend.DSN == "" {
				backend.DSN = os.Getenv(storespg.DSNEnv)
			}
			opts.Token, opts.AllowedHosts = nf.token, nf.allowHosts
			backend.Version = toolVersion
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			octx, cancel := context.WithTimeout(ctx, time.Minute)
			stores, closeStores, err := certify.OpenBackend(octx, backend)
			cancel()
			if err != nil {
				return cliverb.BadInput("serve-store: %v", err)
			}
			defer closeStores()
			srv, err := bridge.NewServer(stores, opts)
			if err != nil {
				return cliverb.BadInput("serve-store: %v", err)
			}
			return nf.listenAndServe(ctx, cmd, "serve-store", srv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&backend.Name, "backend", "", "store to serve: "+strings.Join(certify.Backends(), ", "))
	nf.register(cmd, "LOOM_BRIDGE_LISTEN")
	f.StringVar(&backend.DSN, "dsn", "", "PostgreSQL DSN (postgres backend; default $"+storespg.DSNEnv+", which keeps it out of the process list)")
	f.StringVar(&backend.Schema, "schema", "loom", "PostgreSQL schema (postgres backend; created if missing)")
	f.StringVar(&backend.File, "file", "", "SQLite database file (sqlite backend; default a temporary file removed on exit)")
	f.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", bridge.DefaultMaxRequestBytes, "largest request body accepted")
	f.DurationVar(&opts.CallTimeout, "call-timeout", bridge.DefaultCallTimeout, "deadline of each store call")
	f.Int64Var(&opts.MaxStreamBytes, "max-stream-bytes", bridge.DefaultMaxStreamBytes, "largest chunked ContentStore stream accepted (a larger one is refused and aborted)")
	f.StringVar(&broken, "broken", "", "serve the memory stores with one seam replaced by this broken store (listed above)")
	_ = cmd.RegisterFlagCompletionFunc("backend", cliverb.FixedCompletion(certify.Backends()...))
	return cmd
}

// netHelp is the part of serve-store's and serve-kernel's help about facing a network.
const netHelp = `
Running it safely (docs/bridge.md): requests must be POSTs of application/json whose Host is an
IP address, localhost or a name given with --allow-host (no other site's page can write to it,
and DNS rebinding cannot read it). Listening beyond loopback (--listen 0.0.0.0:PORT) needs a
bearer token, --token or LOOM_CONFORM_TOKEN (at least 16 characters; the variable keeps it out of
the process list), is refused before anything is bound, and prints a warning: the traffic is plain
HTTP. 0.0.0.0:PORT binds IPv4 only. Slow clients are cut off (headers 10 s, a body or a reader
stalled 30 s, an idle connection 60 s); one that stalls holding request or answer bytes another
request waits for gives way at once; at --max-conns the connection that has waited longest on its
client makes room.`

// netFlags are the flags of a server facing a network: where it listens, who may call, how many.
type netFlags struct {
	listen     string
	token      string
	allowHosts []string
	limits     bridge.Limits
}

func (n *netFlags) register(cmd *cobra.Command, listenEnv string) {
	f := cmd.Flags()
	f.StringVar(&n.listen, "listen", "", "address to listen on (default 127.0.0.1:0, a free loopback port; env "+listenEnv+"); beyond loopback it needs --token")
	f.StringVar(&n.token, "token", "", "bearer token every request must carry (default $"+safehttp.TokenEnv+"; required to listen beyond loopback)")
	f.StringSliceVar(&n.allowHosts, "allow-host", nil, "a DNS name requests may give as Host besides IP addresses and localhost (repeatable)")
	f.IntVar(&n.limits.MaxConns, "max-conns", safehttp.DefaultMaxConns, "connections served at once; at the cap the one waiting longest on its client is closed, and if every one is busy a new one gets 503")
}

// resolve fills the defaults the environment gives.
func (n *netFlags) resolve(listenEnv string) {
	if n.listen == "" {
		n.listen = os.Getenv(listenEnv)
	}
	if n.listen == "" {
		n.listen = "127.0.0.1:0"
	}
	if n.token == "" {
		n.token = os.Getenv(safehttp.TokenEnv)
	}
}

// listenAndServe refuses an address beyond loopback without a token before it binds anything
// (and warns with one), listens (an IPv4 address over IPv4 only), prints "listening http://ADDR/"
// as the first line of stdout (how callers that start this binary learn its address) and serves h
// until ctx ends.
func (n *netFlags) listenAndServe(ctx context.Context, cmd *cobra.Command, verb string, h http.Handler) error {
	ln, warning, err := safehttp.Listen(n.listen, n.token)
	if err != nil {
		return cliverb.BadInput("%s: --listen %s: %v", verb, n.listen, err)
	}
	if warning != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", verb, warning)
	}
	if _, err := fmt.Fprintf(cmd.OutOrStdout(), "listening http://%s/\n", ln.Addr()); err != nil {
		ln.Close()
		return err
	}
	if err := bridge.Serve(ctx, ln, h, n.limits); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	return nil
}
