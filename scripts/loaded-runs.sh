#!/usr/bin/env bash
# `npm run test:loaded [-- RUNS]`: the whole test command RUNS times in a row
# (default 3) with a CPU hog beside it (Debian's stress-ng, one worker: half of
# a 2-core machine), the way a busy CI machine runs it. A suite that passes
# only on an idle machine fails here. Prints each run's closing line and
# seconds, then one line "loaded runs: N of RUNS with 0 failed", and exits
# non-zero unless every run passed. The stores are started once for all runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/node.sh
source scripts/lib/provision.sh

runs="${1:-3}"
if ! command -v stress-ng >/dev/null 2>&1; then
  echo "loaded-runs: installing stress-ng (Debian package)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq stress-ng >&2
fi

ensure_node
if [ -z "${MONGO_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  start_test_stores
fi
stress-ng --cpu 1 --timeout 0 --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null || true; stop_test_stores 2>/dev/null || true' EXIT

mkdir -p .test-state
clean=0
for ((run = 1; run <= runs; run++)); do
  started=$SECONDS
  bash scripts/test.sh >".test-state/loaded-run-$run.log" 2>&1 || true
  line=$(tail -n 1 ".test-state/loaded-run-$run.log")
  echo "loaded run $run: $line in $((SECONDS - started)) s (log: .test-state/loaded-run-$run.log)"
  cp .test-state/jest-results.json ".test-state/loaded-run-$run.json" 2>/dev/null || true
  [[ "$line" =~ ^[0-9]+\ passed,\ 0\ failed$ ]] && clean=$((clean + 1))
done
echo "loaded runs: $clean of $runs with 0 failed"
[ "$clean" -eq "$runs" ]
