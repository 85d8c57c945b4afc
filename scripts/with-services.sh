#!/usr/bin/env bash
# Runs a command with the services the suite needs. PostgreSQL: when LOOM_CONFORM_POSTGRES_DSN is
# unset and the server binaries are installed, a throwaway cluster is started for the command and
# stopped afterwards. With CI=true a missing PostgreSQL is an error, never a skip.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${LOOM_CONFORM_POSTGRES_DSN:-}" ]; then
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    eval "$("$here/pg-start.sh")"
    trap '"$here/pg-stop.sh" >&2' EXIT
  elif [ "${CI:-}" = "true" ]; then
    echo "with-services: CI=true but no PostgreSQL server binaries (install postgresql-15) and no LOOM_CONFORM_POSTGRES_DSN" >&2
    exit 1
  else
    echo "with-services: PostgreSQL not installed; Postgres tests will skip (set LOOM_CONFORM_POSTGRES_DSN or install postgresql-15)" >&2
  fi
fi
"$@"
