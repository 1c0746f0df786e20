#!/usr/bin/env bash
# make stress: the concurrency tests of the model versions, many times over, with the machine loaded.
# TestConcurrentScoringSeesWholeModels (four connections scoring while one retrains and one changes α) and
# TestBindRaceSeesOneVersion run STRESS_RUNS times (default 200), TestConcurrentWritersOfEveryKind (retrain,
# nb_set, append, forget and merge as the writers) STRESS_EVERY_RUNS times (default a quarter of that), while
# two busy loops keep every core of a 2-core machine contended; any mixture of two versions in one statement,
# any error, fails the run. Prints the counts, and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${STRESS_RUNS:-200}
busy=${STRESS_BUSY:-2}
bin=$(mktemp -d)/udf.test
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$(dirname "$bin")"; }
trap cleanup EXIT
go test -c -o "$bin" ./udf/
for _ in $(seq "$busy"); do
  (while :; do :; done) &
  pids+=($!)
done
log=$(dirname "$bin")/stress.log
start=$(date +%s)
set +e
(cd udf && timeout 7200 "$bin" -test.run '^(TestConcurrentScoringSeesWholeModels|TestBindRaceSeesOneVersion)$' -test.count "$runs" -test.timeout 7200s -test.v) >"$log" 2>&1
code=$?
every=${STRESS_EVERY_RUNS:-$(( runs / 4 ))}
(cd udf && timeout 7200 "$bin" -test.run '^TestConcurrentWritersOfEveryKind$' -test.count "$every" -test.timeout 7200s -test.v) >>"$log" 2>&1 || code=$?
set -e
passed=$(grep -c -- '^--- PASS: TestConcurrentScoringSeesWholeModels' "$log" || true)
failed=$(grep -c -- '^--- FAIL: TestConcurrentScoringSeesWholeModels' "$log" || true)
mixtures=$(grep -c 'a mixture of models' "$log" || true)
raceFailed=$(grep -c -- '^--- FAIL: TestBindRaceSeesOneVersion' "$log" || true)
everyPassed=$(grep -c -- '^--- PASS: TestConcurrentWritersOfEveryKind' "$log" || true)
everyFailed=$(grep -c -- '^--- FAIL: TestConcurrentWritersOfEveryKind' "$log" || true)
everyMixed=$(grep -c 'a mixture of versions' "$log" || true)
queries=$(grep -o '[0-9]* queries on 4 connections' "$log" | awk '{s += $1} END {print s + 0}')
echo "stress: $runs runs in $(( $(date +%s) - start )) s beside $busy busy loops: TestConcurrentScoringSeesWholeModels passed $passed, failed $failed" \
  "($mixtures mixed results in $queries queries); TestBindRaceSeesOneVersion failed $raceFailed;" \
  "TestConcurrentWritersOfEveryKind (retrain, nb_set, append, forget, merge) passed $everyPassed of $every, failed $everyFailed ($everyMixed mixed)"
if [ "$code" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$raceFailed" -ne 0 ] || [ "$passed" -lt "$runs" ] || [ "$everyFailed" -ne 0 ] || [ "$everyPassed" -lt "$every" ]; then
  grep -E -- '--- FAIL|concurrency_test|mixture|panic' "$log" | head -40
  exit 1
fi
