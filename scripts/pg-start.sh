#!/usr/bin/env bash
# Start a throwaway PostgreSQL cluster for tests: loopback only, a free port, a temp dir, trust auth.
#
#   eval "$(scripts/pg-start.sh)"     # exports LOOM_CONFORM_POSTGRES_DSN and LOOM_CONFORM_PG_DIR
#   go test ./reference/stores/postgres/ ./kits/...
#   scripts/pg-stop.sh                # stops it and removes the temp dir
#
# stdout carries only the export lines; progress goes to stderr. The server binaries come from
# `pg_config --bindir` (or /usr/lib/postgresql/*/bin); when none is installed and we are root, the
# Debian package is installed first. The servers refuse to run as root, so as root every server
# command runs as the postgres user (runuser) on a data dir it owns.
set -euo pipefail

log() { echo "pg-start: $*" >&2; }

find_bindir() {
	local d
	if command -v pg_config >/dev/null 2>&1; then
		d=$(pg_config --bindir 2>/dev/null || true)
		if [[ -x "$d/initdb" && -x "$d/pg_ctl" ]]; then echo "$d"; return 0; fi
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$d/initdb" && -x "$d/pg_ctl" ]]; then echo "$d"; return 0; fi
	done
	return 1
}

if ! BINDIR=$(find_bindir); then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
		log "no PostgreSQL server binaries; installing the Debian package"
		DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
		BINDIR=$(find_bindir) || { log "still no initdb/pg_ctl after installing postgresql"; exit 1; }
	else
		log "no PostgreSQL server binaries (initdb, pg_ctl) found; install the postgresql package"
		exit 1
	fi
fi

AS=()
if [[ $(id -u) -eq 0 ]]; then
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
	AS=(runuser -u postgres --)
fi

free_port() {
	local p i
	for i in $(seq 1 200); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
	done
	return 1
}

DIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-conform-pg.XXXXXX")
chmod 755 "$DIR"
[[ ${#AS[@]} -gt 0 ]] && chown postgres: "$DIR"
PORT=$(free_port) || { log "no free port found"; exit 1; }
cd "$DIR" # the server user may not be allowed into the caller's directory

log "initdb in $DIR/data ($BINDIR)"
"${AS[@]}" "$BINDIR/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$DIR/initdb.log" 2>&1 ||
	{ cat "$DIR/initdb.log" >&2; exit 1; }

# A throwaway cluster: no durability needed, so fsync and synchronous commit are off.
OPTS="-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
log "starting on 127.0.0.1:$PORT"
"${AS[@]}" "$BINDIR/pg_ctl" -D "$DIR/data" -o "$OPTS" -l "$DIR/server.log" -w -t 60 start >&2 ||
	{ cat "$DIR/server.log" >&2; exit 1; }

DSN="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
STATE=${LOOM_CONFORM_PG_STATE:-${TMPDIR:-/tmp}/loom-conform-pg.env}
{
	echo "export LOOM_CONFORM_POSTGRES_DSN='$DSN'"
	echo "export LOOM_CONFORM_PG_DIR='$DIR'"
	echo "export LOOM_CONFORM_PG_BINDIR='$BINDIR'"
} | tee "$STATE"
log "ready; state in $STATE"
