#!/usr/bin/env bash
# Integration tests against independent peers: the npm package @duckdb/node-api (a stock DuckDB 1.5.6 client)
# opens files sqlnb wrote; a throw-away PostgreSQL server (Debian's postgresql, on a local socket) runs the
# exported PostgreSQL functions; tmux drives `sqlnb shell` as a person would; the extension
# (build/sqlnb.duckdb_extension) is loaded by node-api 1.5.6 and 1.5.5, gcc-built C hosts on DuckDB's own
# libduckdb.so 1.5.6 and on DuckDB 2.0's static library, and Go hosts on duckdb-go 1.5.6 and 2.0
# (extension/itest). Installs what is missing (apt, npm, Go modules); every wait is bounded.
# `integration.sh bench-extension` runs the extension's benchmark instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

need_apt=()
command -v tmux >/dev/null || need_apt+=(tmux)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  timeout 600 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
pgbin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")

# node_install DIR VERSION: @duckdb/node-api@VERSION in DIR (one version per directory: each brings its own
# @duckdb/node-bindings and DuckDB library).
node_install() {
  mkdir -p "$1"
  if ! grep -qs "\"version\": \"$2\"" "$1/node_modules/@duckdb/node-api/package.json"; then
    (cd "$1" && timeout 600 npm install --no-audit --no-fund --silent "@duckdb/node-api@$2" >/dev/null)
  fi
}
node_dir=$root/.ci/node
node_install "$node_dir" 1.5.6-r.1
node155_dir=$root/.ci/node-1.5.5
node_install "$node155_dir" 1.5.5-r.5

timeout 1800 make build >/dev/null
timeout 1800 make extension >/dev/null
# The extension's hosts besides node-api (extension/itest builds them): C programs on the npm package's
# libduckdb.so 1.5.6 (with duckdb.h of duckdb-go's 1.5.6 bindings) and on DuckDB 2.0's static library (the
# Go module go.duckdb.org/libduckdb/linux-amd64, with duckdb.h of the 2.0 bindings), and extension/host built
# with go.mod (duckdb-go, DuckDB 2.0) and go.duckdb15.mod (1.5.6). Module directories of both lines,
# whichever line DUCKDB selects.
moddir() { # moddir MODFILE MODULE: the module's directory in the module cache (downloaded if missing)
  GOFLAGS= timeout 900 go mod download -modfile="$1" "$2"
  GOFLAGS= go list -modfile="$1" -m -f '{{.Dir}}' "$2"
}
ext_env=(SQLNB_BIN="$root/bin/sqlnb" SQLNB_EXT="$root/build/sqlnb.duckdb_extension" SQLNB_NODE_DIR="$node_dir"
  SQLNB_NODE155_DIR="$node155_dir" SQLNB_LIBDUCKDB_DIR="$node_dir/node_modules/@duckdb/node-bindings-linux-x64"
  SQLNB_DUCKDB_INCLUDE="$(moddir go.duckdb15.mod github.com/duckdb/duckdb-go-bindings)/include"
  SQLNB_DUCKDB2_INCLUDE="$(moddir go.mod github.com/duckdb/duckdb-go-bindings)/include"
  SQLNB_DUCKDB2_STATIC_DIR="$(moddir go.mod go.duckdb.org/libduckdb/linux-amd64)")
if [ "${1:-}" = bench-extension ]; then
  env "${ext_env[@]}" go test -tags integration -count=1 -timeout 60m -run '^$' -bench . -benchtime 1x ./extension/itest/
  exit
fi

pgdir=$(mktemp -d /tmp/sqlnb-pg.XXXXXX)
chmod 777 "$pgdir"
chown postgres "$pgdir" 2>/dev/null || true
runpg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
runpg "timeout 300 $pgbin/initdb -D $pgdir/data -U postgres --auth=trust -E UTF8 >/dev/null"
runpg "$pgbin/pg_ctl -D $pgdir/data -l $pgdir/log -o \"-k $pgdir -c listen_addresses=''\" -t 120 -w start >/dev/null"
trap 'runpg "$pgbin/pg_ctl -D $pgdir/data -m fast -t 60 -w stop >/dev/null" || true; rm -rf "$pgdir"' EXIT

SQLNB_BIN=$root/bin/sqlnb SQLNB_NODE_DIR=$node_dir PGHOST=$pgdir PGUSER=postgres PGDATABASE=postgres \
  go test -tags integration -count=1 -timeout 10m -run "${SQLNB_TEST_RUN:-Export|Shell|PredictOutput|ReadersShare|Progress|Terminated|Unwritable|SignalEnds}" -v ./cmd/sqlnb/ 2>&1 | grep -v "^=== RUN"
# The conformance suite's PostgreSQL part: every exportable family's functions on the server; its extension
# part: the extension in extension/host built on the same DuckDB line as the library it is compared with.
timeout 900 go build -o build/duckdb-host ./extension/host
PGHOST=$pgdir PGUSER=postgres PGDATABASE=postgres SQLNB_EXT=$root/build/sqlnb.duckdb_extension SQLNB_EXT_HOST=$root/build/duckdb-host \
  go test -count=1 -timeout 10m -run TestConformance ./sqlnb/componenttest/
# The loadable extension in stock clients (extension/itest).
env "${ext_env[@]}" go test -tags integration -count=1 -timeout 15m -run "${SQLNB_EXT_TEST_RUN:-.}" -v ./extension/itest/ 2>&1 \
  | grep -v "^=== RUN"
