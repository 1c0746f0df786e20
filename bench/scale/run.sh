#!/usr/bin/env bash
# Memory and speed at scale (make bench-scale): eval, eval --no-curves, cv and cv --auc against one scoring
# pass over the same rows, each command run as a separate process under /usr/bin/time -v (wall time and
# peak RSS), the commands interleaved, the best of REPS runs kept.
#
#   ROWS     rows to generate (default 4600000): 14 Gaussian features, 3 classes, into a DuckDB file
#   DIR      where the data goes (default /tmp; several GB at 50M rows; removed at the end)
#   REPS     runs of each command (default 2)
#   SQLNB    the sqlnb binary measured (default bin/sqlnb, built by make)
#   BEFORE   optional: an older sqlnb binary measured on the same data for comparison; BEFORE_MAX_GB (default
#            8) kills it when its resident memory passes that many GB
#   ONLY     optional: a regular expression; only the commands whose names match it run
#
# Prints one markdown table: command, seconds, peak RSS (GB), and the time as a multiple of three scoring
# passes: count(nb_predict_proba(...)) at DuckDB's default memory limit and at eval's and cv's default
# (256MB), and predict --proba --output x.parquet.
set -euo pipefail
ROWS=${ROWS:-4600000}
DIR=${DIR:-/tmp}
REPS=${REPS:-2}
SQLNB=${SQLNB:-bin/sqlnb}
BEFORE_MAX_GB=${BEFORE_MAX_GB:-8}
SQLNB=$(realpath "$SQLNB")
[ -n "${BEFORE:-}" ] && BEFORE=$(realpath "$BEFORE")

work=$(mktemp -d "$DIR/sqlnb-bench-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
db=$work/data.duckdb
echo "free space in $DIR: $(df -h "$DIR" | awk 'NR==2 {print $4}'); generating $ROWS rows into $db" >&2

feature() { # x_j: N(shift_j × class, sd_j), some with an offset
  local j=$1 shift sd off
  shift=$(awk -v j="$j" 'BEGIN { printf "%.2f", ((j * 7) % 11 - 5) / 20 }')
  sd=$(awk -v j="$j" 'BEGIN { printf "%.1f", 1 + (j % 3) }')
  off=$(( j == 5 ? 10 : (j == 11 ? 100 : 0) ))
  printf "%s + (i %% 3) * %s + %s * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) AS x%02d" "$off" "$shift" "$sd" "$j"
}
cols=""
for j in $(seq 1 14); do cols+=", $(feature "$j")"; done
"$SQLNB" --quiet --db "$db" sql -c "CREATE TABLE d AS SELECT ['a', 'b', 'c'][1 + (i % 3)::INTEGER] AS y$cols FROM range($ROWS) r(i)" >/dev/null
"$SQLNB" --db "$db" train --model m --label y --from d >&2

# name|binary|arguments (the binary: N for SQLNB, B for BEFORE)
commands=(
  "score: count(nb_predict_proba)|N|sql --read-only -c SELECT count(nb_predict_proba('m', t)) AS n FROM d t"
  "score: count(nb_predict_proba) at 256MB|N|--memory-limit 256MB sql --read-only -c SELECT count(nb_predict_proba('m', t)) AS n FROM d t"
  "score: predict --proba to parquet|N|predict --model m --from d --proba --output $work/scored.parquet"
  "eval|N|eval --model m --from d --format csv"
  "eval --no-curves|N|eval --model m --from d --format csv --no-curves"
  "cv|N|cv --label y --from d --format csv"
  "cv --auc|N|cv --label y --from d --format csv --auc"
)
if [ -n "${BEFORE:-}" ]; then
  commands+=(
    "before: count(nb_predict_proba)|B|sql --read-only -c SELECT count(nb_predict_proba('m', t)) AS n FROM d t"
    "before: eval|B|eval --model m --from d --format csv"
    "before: cv --auc|B|cv --label y --from d --format csv --auc"
  )
fi

declare -A best_s best_gb status
# measure NAME BIN ARGS...: one run under /usr/bin/time -v; a BEFORE run is killed past BEFORE_MAX_GB.
measure() {
  local name=$1 bin=$2; shift 2
  local log=$work/time.log out=$work/out.log pid limit_kb killed=""
  ( cd "$work" && exec /usr/bin/time -v -o "$log" "$bin" --db "$db" "$@" >"$out" 2>&1 ) &
  pid=$!
  if [ "$bin" = "${BEFORE:-}" ]; then
    limit_kb=$((BEFORE_MAX_GB * 1024 * 1024))
    while kill -0 "$pid" 2>/dev/null; do
      local child rss
      child=$(pgrep -P "$pid" | head -1 || true)
      rss=$(awk '/VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null || echo 0)
      if [ "${rss:-0}" -gt "$limit_kb" ]; then kill "$child"; killed="killed past ${BEFORE_MAX_GB} GB"; fi
      sleep 0.5
    done
  fi
  wait "$pid" || true
  local secs kb
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$log")
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
  if [ -n "$killed" ] || ! grep -q "Exit status: 0" "$log"; then
    status[$name]=${killed:-"failed: $(tail -1 "$out")"}
  fi
  if [ -z "${best_s[$name]:-}" ] || awk -v a="$secs" -v b="${best_s[$name]}" 'BEGIN { exit !(a < b) }'; then
    best_s[$name]=$secs
    best_gb[$name]=$(awk -v kb="$kb" 'BEGIN { printf "%.2f", kb / 1024 / 1024 }')
  fi
  echo "  $name: ${secs}s, $(awk -v kb="$kb" 'BEGIN { printf "%.2f", kb / 1024 / 1024 }') GB ${status[$name]:-}" >&2
}

for rep in $(seq 1 "$REPS"); do
  echo "run $rep of $REPS" >&2
  for c in "${commands[@]}"; do
    IFS='|' read -r name which args <<<"$c"
    if [ -n "${ONLY:-}" ] && ! [[ "$name" =~ $ONLY ]]; then continue; fi
    bin=$SQLNB
    [ "$which" = B ] && bin=$BEFORE
    if [[ "$args" == *sql\ --read-only\ -c* ]]; then
      # the statement is one argument
      set -- ${args%% -c *} -c "${args#* -c }"
    else
      read -r -a words <<<"$args"
      set -- "${words[@]}"
    fi
    measure "$name" "$bin" "$@"
  done
done

count=${best_s["score: count(nb_predict_proba)"]:-}
count256=${best_s["score: count(nb_predict_proba) at 256MB"]:-}
predict=${best_s["score: predict --proba to parquet"]:-}
echo
echo "$ROWS rows × 14 Gaussian features × 3 classes, DuckDB file; best of $REPS interleaved runs; $(nproc) cores"
echo
echo "| command | seconds | peak RSS (GB) | × count(nb_predict_proba) | × the same at 256MB | × predict --proba |"
echo "|---|---|---|---|---|---|"
for c in "${commands[@]}"; do
  IFS='|' read -r name _ _ <<<"$c"
  [ -z "${best_s[$name]:-}" ] && continue
  rc=$(awk -v a="${best_s[$name]}" -v b="$count" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "" }')
  r256=$(awk -v a="${best_s[$name]}" -v b="$count256" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "" }')
  rp=$(awk -v a="${best_s[$name]}" -v b="$predict" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "" }')
  note=""
  [ -n "${status[$name]:-}" ] && note=" (${status[$name]})"
  echo "| $name$note | ${best_s[$name]} | ${best_gb[$name]} | $rc | $r256 | $rp |"
done
