# Builds go-httpbin into the git-ignored .tools dir, for the comparison
# benchmark of issue #36 (bench/vs-go-httpbin.mjs): the peer a load tester
# compares the sandbox's HTTP-practice routes with. It is a benchmark tool,
# not part of `npm test`, so scripts/test.sh does not call this. There is no
# go-httpbin package here and only the package registries are reachable, so
# it is built with Go from the module proxy, as toxiproxy is. Pinned to
# v2.26.0, the version the issue measured. Sourced by scripts;
# `ensure_go_httpbin` is idempotent: a binary of the pinned version already
# in .tools is reused. Run from the repository root, or set TOOLS_DIR.

source "$(dirname "${BASH_SOURCE[0]}")/go-install.sh"

GO_HTTPBIN_VERSION=v2.26.0
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
GO_HTTPBIN_BIN="${GO_HTTPBIN_BIN:-$TOOLS_DIR/go-httpbin-$GO_HTTPBIN_VERSION}"

# `go install ...@v2.26.0` works here (the exact version is served). As with
# toxiproxy, it is built into a scratch GOBIN, because go install names the
# binary after its directory (`go-httpbin`), and moved to a name that
# carries the version. A static binary (CGO_ENABLED=0), with -trimpath so
# that it does not depend on where it was built. Its version is a variable of
# package main that the release sets with -ldflags ("dev" otherwise), set
# here the same way so that `go-httpbin -version` names the real one, and a
# binary that does not (an older pin, a hand-made one) is built again.
ensure_go_httpbin() {
  if [ ! -x "$GO_HTTPBIN_BIN" ] || [ "$("$GO_HTTPBIN_BIN" -version 2>&1 | head -1)" != "go-httpbin version $GO_HTTPBIN_VERSION" ]; then
    go_install_pinned go-httpbin github.com/mccutchen/go-httpbin/v2/cmd/go-httpbin "$GO_HTTPBIN_VERSION" main.version "$GO_HTTPBIN_BIN" || return 1
  fi
  export GO_HTTPBIN_BIN
}
