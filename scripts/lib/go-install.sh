# One way to build a pinned tool from its Go module (toxiproxy, go-httpbin):
# `go install` names the binary after its directory (toxiproxy's is
# `server`), so it is built into a scratch GOBIN and moved to the pinned path,
# whose name carries the version. The release's version variable is set with
# -ldflags -X as the release sets it, so the tool names its real version.
#
#   go_install_pinned LABEL PACKAGE VERSION VERSION_VARIABLE TARGET
#     e.g. go_install_pinned toxiproxy github.com/Shopify/toxiproxy/v2/cmd/server v2.12.0 \
#            github.com/Shopify/toxiproxy/v2.Version .tools/toxiproxy-server-v2.12.0
go_install_pinned() {
  local label="$1" package="$2" version="$3" variable="$4" target="$5" scratch
  command -v go >/dev/null 2>&1 || { echo "$label: Go is needed to build $label $version" >&2; return 1; }
  echo "$label: building $(basename "$target") with $(go version | cut -d' ' -f3)" >&2
  mkdir -p "$(dirname "$target")"
  scratch=$(mktemp -d)
  if ! GOBIN="$scratch" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w -X $variable=$version" "$package@$version" >&2; then
    rm -rf "$scratch"
    echo "$label: go install $package@$version failed" >&2
    return 1
  fi
  mv "$scratch/$(basename "$package")" "$target" && rm -rf "$scratch"
}
