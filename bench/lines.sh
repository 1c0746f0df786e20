#!/usr/bin/env bash
# make bench-lines: make bench's benchmarks on DuckDB 2.0 (go.mod) and 1.5.6 (go.duckdb15.mod), in one run,
# each benchmark on one line and then the other, so that the two tables of each come from the same minutes of
# the same machine. BENCH_ROWS (default 3,000,000) sets the rows; BENCH_RUN the benchmarks (a -bench regexp;
# default every one); the 10-class logistic regression (an hour at 10M rows) runs only with BENCH_ONLY=lr10.
# Prints each benchmark's tables under "== <benchmark> on DuckDB <line>".
set -euo pipefail
cd "$(dirname "$0")/.."
export BENCH_ROWS=${BENCH_ROWS:-3000000}
run=${BENCH_RUN:-Sqlnb Groups Counts Text Store Discriminant Logistic}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=1 go test -c -o "$tmp/bench20.test" ./bench/
CGO_ENABLED=1 GOFLAGS=-modfile=go.duckdb15.mod go test -c -o "$tmp/bench15.test" ./bench/
echo "bench-lines: $BENCH_ROWS rows, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for b in $run; do
  only=${BENCH_ONLY:-}
  if [ "$b" = Logistic ] && [ -z "$only" ]; then only=lr2; fi
  for line in 20 15; do
    echo "== Benchmark$b on DuckDB $([ $line = 20 ] && echo 2.0.0 || echo 1.5.6)"
    (cd bench && BENCH_ONLY=$only "$tmp/bench$line.test" -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime 1x -test.timeout 240m) \
      | grep -v '^goos\|^goarch\|^pkg\|^cpu\|^PASS\|^ok'
  done
done
