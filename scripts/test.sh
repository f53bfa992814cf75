#!/usr/bin/env bash
# The test command (`npm test`): on the Node.js line the image ships
# (scripts/lib/node.sh; the machine's own Node may be older), real Redis and a
# real MongoDB-wire server (provisioned and started here unless MONGO_URL and
# REDIS_URL are given), pinned third-party clients for the interoperability
# tests, buildah and podman for the image test, a fresh build, type-checked
# tests, then every jest project. Ends with one line "N passed, N failed".
# Exits non-zero when anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/node.sh
source scripts/lib/provision.sh
source scripts/lib/containers.sh
source scripts/lib/helm.sh
source scripts/lib/compose-schema.sh
source scripts/lib/toxiproxy.sh
source scripts/lib/otelcol.sh
source scripts/lib/monitoring.sh
source scripts/lib/mongo-tools.sh

ensure_node   # from here on, `node` (and so npm, npx and jest) is the image's Node line
echo "test: on Node.js $(node --version)" >&2
mkdir -p .test-state
# The run starts Node.js about 500 times (jest's workers, every system's
# launcher and five services, bench scripts, tsc and vite): with V8's code
# cache on disk each module is compiled once, which took 15% off a system's
# start-up CPU here. Tests pass it on to the processes they start
# (test/support/node-env.ts, bench/lib.mjs).
export NODE_COMPILE_CACHE="$PWD/.test-state/node-compile-cache"

# What the tests need beyond npm, in four lanes at once, since a fresh machine
# spends most of its provisioning waiting: Debian packages (one after another:
# apt holds one lock), FerretDB's build and the other builds from Go modules
# (two lanes: each build has single-threaded stretches, downloading and
# linking, that the other fills; 149 s together against 195 s one after the
# other, with empty caches), and the pinned Python clients (the network).
# Each lane logs to .test-state/provision-<lane>.log with each step's seconds.
# Every step is idempotent, so afterwards they all run again here, as no-ops
# that export their binaries' paths to this shell.
#   debian: redis-server, PostgreSQL (under FerretDB), Chromium (the browser
#           tests), buildah and podman (the image test), prometheus (promtool
#           and the server, for the alert rules and the dashboard)
#   ferretdb: FerretDB (a MongoDB-wire server; the store-outage scenario
#           starts stores of its own too), then the OpenTelemetry Collector
#           (the tracing suite's trace backend; scripts/lib/otelcol.sh)
#   go:     helm (the chart tests), toxiproxy (the chaos suite), the Compose
#           Specification schema, then mongodump and mongorestore (the
#           restore drill; scripts/lib/mongo-tools.sh). The two lanes of Go
#           builds are balanced by what each build took with empty caches on
#           a fresh clone: FerretDB 161 s and the collector 59 s against helm
#           201 s, toxiproxy 7 s and the Database Tools 32 s (with the
#           collector after helm, provisioning took 268 s)
#   python: requests and friends (interoperability), kubernetes-validate (the
#           chart's manifests against the API schemas), schemathesis (fuzzing)
provision_lane() { # name step...
  local name="$1"; shift
  (
    local step started
    for step in "$@"; do
      started=$SECONDS
      "$step" || { echo "provision: $step failed" >&2; exit 1; }
      echo "provision: $step took $((SECONDS - started)) s" >&2
    done
  ) >".test-state/provision-$name.log" 2>&1
}
provisioning_started=$SECONDS
provision_lane debian ensure_redis ensure_postgres ensure_chromium ensure_containers ensure_prometheus &
debian_lane=$!
provision_lane ferretdb ensure_ferretdb ensure_otelcol &
ferretdb_lane=$!
provision_lane go ensure_helm ensure_toxiproxy ensure_compose_schema ensure_mongo_tools &
go_lane=$!
provision_lane python ensure_python_clients ensure_kubernetes_validate ensure_schemathesis &
python_lane=$!
lanes_failed=0
for lane in debian:$debian_lane ferretdb:$ferretdb_lane go:$go_lane python:$python_lane; do
  wait "${lane#*:}" || { lanes_failed=1; echo "test: provisioning lane ${lane%%:*} failed:" >&2; cat ".test-state/provision-${lane%%:*}.log" >&2; }
done
[ "$lanes_failed" -eq 0 ] || exit 1
cat .test-state/provision-{debian,ferretdb,go,python}.log | grep '^provision: .* took' >&2 || true
ensure_redis && ensure_postgres && ensure_ferretdb && ensure_otelcol && ensure_chromium && ensure_containers && ensure_prometheus
ensure_helm && ensure_toxiproxy && ensure_compose_schema && ensure_mongo_tools
ensure_python_clients && ensure_kubernetes_validate && ensure_schemathesis
echo "test: provisioned in $((SECONDS - provisioning_started)) s" >&2

if [ -z "${MONGO_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  start_test_stores
  trap stop_test_stores EXIT
fi

npm run build --silent
npx tsc -p tsconfig.test.json

status=0
npx jest --ci --maxWorkers=2 --json --outputFile=.test-state/jest-results.json "$@" || status=$?
node scripts/lib/summarize-jest.js .test-state/jest-results.json
exit "$status"
