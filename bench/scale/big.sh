#!/usr/bin/env bash
# 200M rows on one machine (make bench-big): generates a parquet file of ROWS rows (default 200M: 8 Gaussian
# features with two decimals, 3 classes; ~2.5 GB) in DIR, then measures `sqlnb train` and `sqlnb predict
# --output x.parquet` on it with --memory-limit LIMIT (default 2GB; DuckDB spills beyond it to --temp-dir),
# each under /usr/bin/time -v: wall time, rows/s and peak RSS. Every file is removed at the end.
#
#   ROWS, DIR (default /tmp), LIMIT (default 2GB), SQLNB (default bin/sqlnb)
set -euo pipefail
ROWS=${ROWS:-200000000}
DIR=${DIR:-/tmp}
LIMIT=${LIMIT:-2GB}
SQLNB=$(realpath "${SQLNB:-bin/sqlnb}")

# The data (~13 bytes a row) and the scored copy (~15) must fit, with room to spill.
need_kb=$((ROWS / 1024 * 40))
free_kb=$(df -Pk "$DIR" | awk 'NR==2 {print $4}')
if [ "$free_kb" -lt "$need_kb" ]; then
  echo "bench-big needs about $((need_kb / 1024 / 1024)) GB free in $DIR; it has $((free_kb / 1024 / 1024)) GB" >&2
  exit 1
fi
work=$(mktemp -d "$DIR/sqlnb-bench-big.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

cols=""
for j in $(seq 1 8); do
  cols+=", round((i % 3) * $(awk -v j="$j" 'BEGIN { printf "%.2f", ((j * 7) % 11 - 5) / 10 }') + sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()), 2) AS x$j"
done
echo "generating $ROWS rows into $work/big.parquet" >&2
/usr/bin/time -f "generated in %e s, peak RSS %M KB" "$SQLNB" --quiet --db :memory: --memory-limit "$LIMIT" sql -c \
  "COPY (SELECT ['a', 'b', 'c'][1 + (i % 3)::INTEGER] AS y$cols FROM range($ROWS) r(i)) TO 'big.parquet' (FORMAT parquet)" >/dev/null
echo "big.parquet: $(du -h big.parquet | cut -f1)" >&2

measure() { # NAME ARGS...: prints "| NAME | seconds | M rows/s | peak RSS GB |"
  local name=$1; shift
  /usr/bin/time -v -o time.log "$SQLNB" --memory-limit "$LIMIT" --temp-dir "$work/spill" --db model.duckdb "$@" >&2
  local secs kb
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' time.log)
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' time.log)
  awk -v n="$name" -v s="$secs" -v kb="$kb" -v rows="$ROWS" \
    'BEGIN { printf "| %s | %.1f | %.2f | %.2f |\n", n, s, rows / s / 1e6, kb / 1024 / 1024 }'
}
train=$(measure "train" train --model m --label y --from big.parquet)
predict=$(measure "predict --output scored.parquet" predict --model m --from big.parquet --output scored.parquet)
echo "scored.parquet: $(du -h scored.parquet | cut -f1)" >&2
echo
echo "$ROWS rows × 8 Gaussian features × 3 classes (parquet), --memory-limit $LIMIT, $(nproc) cores"
echo
echo "| command | seconds | M rows/s | peak RSS (GB) |"
echo "|---|---|---|---|"
echo "$train"
echo "$predict"
