#!/usr/bin/env bash
# Runs a node script (npm run soak, npm run chaos) against real stores,
# provisioned and started here as the test command does, unless MONGO_URL and
# REDIS_URL are given:  bash scripts/with-stores.sh bench/soak.mjs [args...]
# The binaries are ensured either way (REDIS_SERVER_BIN, FERRETDB_BIN): a
# chaos scenario that stops its stores starts its own from them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/provision.sh
source scripts/lib/toxiproxy.sh
ensure_redis
ensure_ferretdb
ensure_toxiproxy   # the slow-service scenario's proxy
if [ -z "${MONGO_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  start_test_stores
  trap stop_test_stores EXIT
fi
node "$@"
