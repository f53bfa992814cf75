#!/usr/bin/env bash
# Runs a node script (npm run soak, npm run chaos) against real stores,
# provisioned and started here as the test command does, unless MONGO_URL and
# REDIS_URL are given:  bash scripts/with-stores.sh bench/soak.mjs [args...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/provision.sh
if [ -z "${MONGO_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  start_test_stores
  trap stop_test_stores EXIT
fi
node "$@"
