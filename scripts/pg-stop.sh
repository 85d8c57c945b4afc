#!/usr/bin/env bash
# Stop the cluster started by scripts/pg-start.sh and remove its temp dir. Reads LOOM_CONFORM_PG_DIR
# (and LOOM_CONFORM_PG_BINDIR) from the environment, else from the state file pg-start.sh wrote.
# Stopping a cluster that is not running is not an error.
set -euo pipefail

log() { echo "pg-stop: $*" >&2; }

STATE=${LOOM_CONFORM_PG_STATE:-${TMPDIR:-/tmp}/loom-conform-pg.env}
if [[ -z "${LOOM_CONFORM_PG_DIR:-}" && -f "$STATE" ]]; then
	# shellcheck disable=SC1090
	source "$STATE"
fi
DIR=${LOOM_CONFORM_PG_DIR:-}
if [[ -z "$DIR" || ! -d "$DIR" ]]; then
	log "no cluster to stop"
	exit 0
fi
case "$DIR" in
*/loom-conform-pg.*) ;;
*) log "refusing to remove $DIR: not a directory pg-start.sh made"; exit 1 ;;
esac
BINDIR=${LOOM_CONFORM_PG_BINDIR:-$(pg_config --bindir)}
AS=()
[[ $(id -u) -eq 0 ]] && AS=(runuser -u postgres --)
cd "$DIR"
if [[ -f "$DIR/data/postmaster.pid" ]]; then
	"${AS[@]}" "$BINDIR/pg_ctl" -D "$DIR/data" -m fast -w -t 60 stop >&2 || log "pg_ctl stop failed (continuing)"
fi
cd /
rm -rf "$DIR"
[[ -f "$STATE" ]] && rm -f "$STATE"
log "stopped and removed $DIR"
