# Installs what the integration tests need and a fresh machine of this project's
# kind lacks: redis-server (Debian package), FerretDB v1 (a MongoDB-wire
# server, built with Go; there is no Docker engine and no MongoDB package here)
# on PostgreSQL (Debian package; scripts/lib/postgres.sh) and Chromium (Debian
# package) for the browser test of the CORS lab.
# Sourced by scripts/test.sh. Idempotent: already-present tools are reused.

source "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"

FERRETDB_VERSION=v1.24.2
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
FERRETDB_BIN="$TOOLS_DIR/ferretdb-$FERRETDB_VERSION"

# Both ensure_* functions export the binary's path (REDIS_SERVER_BIN,
# FERRETDB_BIN): a scenario that stops and restarts its own stores
# (bench/chaos/store-outage.mjs) starts them from there.
ensure_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "provision: installing redis-server (Debian package)" >&2
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >&2
    command -v redis-server >/dev/null 2>&1 || { echo "provision: redis-server could not be installed" >&2; return 1; }
  fi
  REDIS_SERVER_BIN=$(command -v redis-server)
  export REDIS_SERVER_BIN
}

# The CORS lab is proven in a real browser (headless Chromium driven by
# playwright-core). Playwright's own browser download cannot be reached from
# machines of this kind, so the browser is Debian's package, launched from
# CHROMIUM_PATH (test/support/browser.ts reads the same default).
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
ensure_chromium() {
  [ -x "$CHROMIUM_PATH" ] && return 0
  echo "provision: installing chromium (Debian package)" >&2
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
  [ -x "$CHROMIUM_PATH" ] || { echo "provision: chromium could not be installed at $CHROMIUM_PATH" >&2; return 1; }
}

ensure_ferretdb() {
  [ -x "$FERRETDB_BIN" ] || build_ferretdb || return 1
  export FERRETDB_BIN
}

# `go install github.com/FerretDB/FerretDB/cmd/ferretdb@v1.24.2` fails here: the
# module proxy refuses the version list it reads for deprecation notices, and a
# build from the module zip panics at start because build/version/version.txt is
# generated upstream and not in the zip. So: download exactly that version,
# write its version.txt, build it.
build_ferretdb() {
  command -v go >/dev/null 2>&1 || { echo "provision: Go is needed to build FerretDB" >&2; return 1; }
  echo "provision: building FerretDB $FERRETDB_VERSION with $(go version | cut -d' ' -f3)" >&2
  mkdir -p "$TOOLS_DIR"
  local src; src=$(mktemp -d)
  local dir
  dir=$(cd "$src" && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { echo "provision: could not download FerretDB $FERRETDB_VERSION" >&2; return 1; }
  cp -r "$dir/." "$src/ferretdb" && chmod -R u+w "$src/ferretdb"
  echo "$FERRETDB_VERSION" > "$src/ferretdb/build/version/version.txt"
  if ! (cd "$src/ferretdb" && go build -o "$FERRETDB_BIN" ./cmd/ferretdb) >&2; then
    echo "provision: retrying with the Go toolchain FerretDB was released with" >&2
    (cd "$src/ferretdb" && GOTOOLCHAIN=go1.22.12 go build -o "$FERRETDB_BIN" ./cmd/ferretdb) >&2 || return 1
  fi
  rm -rf "$src"
}

# The interoperability tests drive third-party clients: Python's requests is
# the one a Python learner reaches for, requests-oauthlib (on oauthlib) the
# one they use for OAuth 1.0a and 2.0, and PyJWT (with cryptography) the one
# that verifies an RS256 token against a PEM or a JWKS. They are pinned, in a virtual
# environment of the project's own, so the tests never depend on what else is
# installed.
PYTHON_CLIENT_PACKAGES=(requests==2.32.3 requests-oauthlib==2.0.0 oauthlib==3.3.1 PyJWT==2.15.1 cryptography==50.0.2)
PYTHON_CLIENTS_DIR="$TOOLS_DIR/python-clients"
ensure_python_clients() {
  ensure_python_venv "$PYTHON_CLIENTS_DIR" "${PYTHON_CLIENT_PACKAGES[@]}"
}

# The chart's manifests are validated offline against the Kubernetes API's own
# schemas: kubernetes-validate ships them for every release it knows (1.37.0 is
# the newest Kubernetes it covers).
KUBERNETES_VALIDATE_PACKAGES=(kubernetes-validate==1.37.0)
KUBERNETES_VALIDATE_DIR="$TOOLS_DIR/kubernetes-validate"
ensure_kubernetes_validate() {
  ensure_python_venv "$KUBERNETES_VALIDATE_DIR" "${KUBERNETES_VALIDATE_PACKAGES[@]}"
}

# Schemathesis generates requests from the OpenAPI document and checks every
# answer against it (the contract's property-based test).
SCHEMATHESIS_PACKAGES=(schemathesis==4.32.5)
SCHEMATHESIS_DIR="$TOOLS_DIR/schemathesis"
ensure_schemathesis() {
  ensure_python_venv "$SCHEMATHESIS_DIR" "${SCHEMATHESIS_PACKAGES[@]}"
}

# A virtual environment of the project's own holding exactly the pinned
# packages (PyPI), so nothing depends on what else the machine has installed.
# Idempotent: a marker names the pinned set; a different set rebuilds it.
ensure_python_venv() { # dir package==version...
  local dir="$1"; shift
  local marker="$dir/.installed-$(printf '%s_' "$@" | tr '=' '-')"
  [ -f "$marker" ] && return 0
  command -v python3 >/dev/null 2>&1 || { echo "provision: python3 is needed for $*" >&2; return 1; }
  echo "provision: installing $* (PyPI) into $dir" >&2
  rm -rf "$dir"
  python3 -m venv "$dir" >&2 || { echo "provision: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; return 1; }
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2 || return 1
  touch "$marker"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

wait_for_port() { # port seconds
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# Starts Redis, and FerretDB on PostgreSQL (scripts/lib/postgres.sh says why
# not SQLite), on free loopback ports in a scratch directory, and exports
# REDIS_URL and MONGO_URL. stop_test_stores undoes it.
start_test_stores() {
  ensure_redis && ensure_ferretdb && ensure_postgres || return 1
  STORES_DIR=$(mktemp -d)
  chmod 755 "$STORES_DIR"
  local redis_port mongo_port pg_port
  redis_port=$(free_port); mongo_port=$(free_port); pg_port=$(free_port)
  start_postgres "$STORES_DIR/postgres" "$pg_port" || return 1
  "$REDIS_SERVER_BIN" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --maxmemory-policy noeviction --dir "$STORES_DIR" \
    --logfile "$STORES_DIR/redis.log" --daemonize no &
  REDIS_PID=$!
  "$FERRETDB_BIN" --handler=postgresql --postgresql-url="postgres://postgres@127.0.0.1:$pg_port/ferretdb" --listen-addr="127.0.0.1:$mongo_port" \
    --state-dir="$STORES_DIR" --telemetry=disable --debug-addr=- --log-level=warn >"$STORES_DIR/ferretdb.log" 2>&1 &
  FERRETDB_PID=$!
  wait_for_port "$redis_port" 10 || { echo "provision: redis did not start: $(tail -5 "$STORES_DIR/redis.log")" >&2; return 1; }
  wait_for_port "$mongo_port" 20 || { echo "provision: ferretdb did not start: $(tail -5 "$STORES_DIR/ferretdb.log")" >&2; return 1; }
  export REDIS_URL="redis://127.0.0.1:$redis_port"
  export MONGO_URL="mongodb://127.0.0.1:$mongo_port"
  echo "provision: redis at $REDIS_URL, ferretdb at $MONGO_URL" >&2
}

stop_test_stores() {
  [ -n "${REDIS_PID:-}" ] && kill "$REDIS_PID" 2>/dev/null
  [ -n "${FERRETDB_PID:-}" ] && kill "$FERRETDB_PID" 2>/dev/null
  wait 2>/dev/null
  [ -n "${STORES_DIR:-}" ] && stop_postgres "$STORES_DIR/postgres"
  [ -n "${STORES_DIR:-}" ] && rm -rf "$STORES_DIR"
  return 0
}
