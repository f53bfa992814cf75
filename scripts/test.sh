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

ensure_node   # from here on, `node` (and so npm, npx and jest) is the image's Node line
echo "test: on Node.js $(node --version)" >&2
ensure_redis && ensure_ferretdb   # their binaries too: the store-outage chaos scenario starts stores of its own
if [ -z "${MONGO_URL:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  start_test_stores
  trap stop_test_stores EXIT
fi

ensure_helm   # the chart tests render deploy/helm with a real helm
ensure_kubernetes_validate   # ...and validate what it renders against the Kubernetes API schemas
ensure_compose_schema   # the Compose Specification schema docker-compose.yml is validated against
ensure_python_clients   # third-party clients for the interoperability tests
ensure_schemathesis   # fuzzes the API from its OpenAPI document
ensure_chromium   # a real browser for the CORS lab test
ensure_toxiproxy   # a real TCP proxy that slows a service down, for the chaos suite (TOXIPROXY_BIN)
ensure_containers   # buildah builds the image and podman runs it (deploy/test/image.test.ts)
npm run build --silent
npx tsc -p tsconfig.test.json

mkdir -p .test-state
status=0
npx jest --ci --maxWorkers=2 --json --outputFile=.test-state/jest-results.json "$@" || status=$?
node scripts/lib/summarize-jest.js .test-state/jest-results.json
exit "$status"
