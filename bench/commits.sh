#!/usr/bin/env bash
# make bench-commits BEFORE=<rev>: make bench's benchmarks at commit BEFORE and at the work tree, in one run,
# each benchmark at one and then the other, so that the two tables of each come from the same minutes of the
# same machine (a change's before/after ratios). BENCH_ROWS (default 3,000,000) sets the rows; BENCH_RUN the
# benchmarks (default every one; the 10-class logistic regression only with BENCH_ONLY=lr10).
# Prints each benchmark's tables under "== <benchmark> at <before|after>".
set -euo pipefail
cd "$(dirname "$0")/.."
before=${BEFORE:?set BEFORE to the commit to compare with}
export BENCH_ROWS=${BENCH_ROWS:-3000000}
run=${BENCH_RUN:-Sqlnb Groups Counts Text Store Discriminant Logistic}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/before" "$before" >/dev/null
(cd "$tmp/before" && CGO_ENABLED=1 go test -c -o "$tmp/before.test" ./bench/)
CGO_ENABLED=1 go test -c -o "$tmp/after.test" ./bench/
echo "bench-commits: $(git rev-parse --short "$before") against the work tree at $(git rev-parse --short HEAD), $BENCH_ROWS rows, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
for b in $run; do
  only=${BENCH_ONLY:-}
  if [ "$b" = Logistic ] && [ -z "$only" ]; then only=lr2; fi
  for side in before after; do
    dir=bench
    [ $side = before ] && dir="$tmp/before/bench"
    echo "== Benchmark$b at $side"
    (cd "$dir" && BENCH_ONLY=$only "$tmp/$side.test" -test.run '^$' -test.bench "^Benchmark$b\$" -test.benchtime 1x -test.timeout 240m) \
      | grep -v '^goos\|^goarch\|^pkg\|^cpu\|^PASS\|^ok'
  done
done
