#!/usr/bin/env bash
# Starts a throwaway PostgreSQL on 127.0.0.1:$PGPORT owned by the postgres
# user, and prints the URL tests use. Sourced by .ci/run; usable by hand:
#   eval "$(.ci/postgres.sh)"
set -euo pipefail
PGPORT=${PGPORT:-55432}
PGDIR=${PGDIR:-/tmp/gateway-ci-pg}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "installing postgresql from Debian" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if ! as_pg "$bin/pg_ctl" -D "$PGDIR" status >/dev/null 2>&1; then
  rm -rf "$PGDIR"; mkdir -p "$PGDIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PGDIR"
  as_pg "$bin/initdb" -D "$PGDIR" -U gateway --auth=trust -E UTF8 >/dev/null
  as_pg "$bin/pg_ctl" -D "$PGDIR" -l "$PGDIR/log" -w \
    -o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >&2
fi
echo "export GATEWAY_TEST_DATABASE_URL='postgres://gateway@127.0.0.1:$PGPORT/postgres?sslmode=disable'"
