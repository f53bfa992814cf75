# Builds Shopify's toxiproxy server into the git-ignored .tools dir, for the
# chaos scenario that slows a service down (bench/chaos/slow-service.mjs):
# a real TCP proxy between the gateways and the service, whose latency is set
# through its HTTP API. There is no toxiproxy package here and only the
# package registries are reachable, so it is built with Go from the module
# proxy, as FerretDB and helm are. Sourced by scripts; `ensure_toxiproxy` is
# idempotent: a binary of the pinned version already in .tools is reused. Run
# from the repository root, or set TOOLS_DIR.

source "$(dirname "${BASH_SOURCE[0]}")/go-install.sh"

TOXIPROXY_VERSION=v2.12.0
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
TOXIPROXY_BIN="${TOXIPROXY_BIN:-$TOOLS_DIR/toxiproxy-server-$TOXIPROXY_VERSION}"

# Unlike FerretDB's, `go install ...@v2.12.0` works here (the exact version
# is served; only the version list, i.e. @latest, is cut short at v2.5.0).
# Two things need care: go install names the binary after its directory
# (`server`), so it is built into a scratch GOBIN and moved to a name that
# carries the version; and the version is a variable the release sets with
# -ldflags (it is "git" otherwise), set here the same way so that
# `toxiproxy-server -version` and its start-up log name the real one.
ensure_toxiproxy() {
  if [ ! -x "$TOXIPROXY_BIN" ]; then
    go_install_pinned toxiproxy github.com/Shopify/toxiproxy/v2/cmd/server "$TOXIPROXY_VERSION" github.com/Shopify/toxiproxy/v2.Version "$TOXIPROXY_BIN" || return 1
  fi
  export TOXIPROXY_BIN
}
