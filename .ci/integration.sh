#!/usr/bin/env bash
# Integration tests against independent peers: the npm package @duckdb/node-api (a stock DuckDB 1.5.6 client)
# opens files sqlnb wrote; a throw-away PostgreSQL server (Debian's postgresql, on a local socket) runs the
# exported PostgreSQL functions; tmux drives `sqlnb shell` as a person would. Installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

need_apt=()
command -v tmux >/dev/null || need_apt+=(tmux)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")

node_dir=$root/.ci/node
mkdir -p "$node_dir"
node_api=1.5.6-r.1
if ! grep -qs "\"version\": \"$node_api\"" "$node_dir/node_modules/@duckdb/node-api/package.json"; then
  (cd "$node_dir" && npm install --no-audit --no-fund --silent "@duckdb/node-api@$node_api" >/dev/null)
fi

pgdir=$(mktemp -d /tmp/sqlnb-pg.XXXXXX)
chmod 777 "$pgdir"
chown postgres "$pgdir" 2>/dev/null || true
runpg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
runpg "$pgbin/initdb -D $pgdir/data -U postgres --auth=trust -E UTF8 >/dev/null"
runpg "$pgbin/pg_ctl -D $pgdir/data -l $pgdir/log -o \"-k $pgdir -c listen_addresses=''\" -w start >/dev/null"
trap 'runpg "$pgbin/pg_ctl -D $pgdir/data -m fast -w stop >/dev/null" || true; rm -rf "$pgdir"' EXIT

make build >/dev/null
SQLNB_BIN=$root/bin/sqlnb SQLNB_NODE_DIR=$node_dir PGHOST=$pgdir PGUSER=postgres PGDATABASE=postgres \
  go test -tags integration -count=1 -timeout 10m -run "${SQLNB_TEST_RUN:-Export|Shell|PredictOutput|ReadersShare|Progress}" -v ./cmd/sqlnb/ 2>&1 | grep -v "^=== RUN"
# The conformance suite's PostgreSQL part: every exportable family's functions on the server.
PGHOST=$pgdir PGUSER=postgres PGDATABASE=postgres go test -count=1 -timeout 10m -run TestConformance ./sqlnb/componenttest/
