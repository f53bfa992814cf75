# Builds helm into the git-ignored .tools dir (there is no helm package here and
# only the package registries are reachable, so it is built with Go from the
# module proxy). Sourced by scripts; `ensure_helm` is idempotent: a helm of the
# pinned version already in .tools is reused. Run from the repository root, or
# set TOOLS_DIR.

HELM_VERSION=v3.22.0
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
HELM_BIN="$TOOLS_DIR/helm"

# Plain `go install helm.sh/helm/v3/cmd/helm@v3.22.0` works here, but the binary
# it makes reports version "v3.22" and, worse, believes the cluster is
# Kubernetes 1.20 (helm's Makefile sets the real version with -ldflags), so
# `helm template` would render .Capabilities.KubeVersion as v1.20.0 and lint
# against 1.20 deprecations. So: read the client-go version helm was released
# with from its go.mod, and pass the same -ldflags its Makefile does.
ensure_helm() {
  if [ -x "$HELM_BIN" ] && [ "$("$HELM_BIN" version --template '{{.Version}}' 2>/dev/null)" = "$HELM_VERSION" ]; then
    return 0
  fi
  command -v go >/dev/null 2>&1 || { echo "helm: Go is needed to build helm $HELM_VERSION" >&2; return 1; }
  echo "helm: building helm $HELM_VERSION with $(go version | cut -d' ' -f3)" >&2
  mkdir -p "$TOOLS_DIR"
  local scratch gomod minor
  scratch=$(mktemp -d)
  gomod=$(cd "$scratch" && GOFLAGS=-mod=mod go mod download -json "helm.sh/helm/v3@$HELM_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
  rmdir "$scratch"
  [ -n "$gomod" ] && [ -f "$gomod" ] || { echo "helm: could not download helm.sh/helm/v3@$HELM_VERSION" >&2; return 1; }
  # client-go v0.N.x is Kubernetes 1.N
  minor=$(sed -n 's/^[[:space:]]*k8s\.io\/client-go v0\.\([0-9][0-9]*\)\..*/\1/p' "$gomod" | head -1)
  [ -n "$minor" ] || { echo "helm: no k8s.io/client-go in $gomod" >&2; return 1; }
  local pkg=helm.sh/helm/v3
  local ldflags="-s -w -X $pkg/internal/version.version=$HELM_VERSION"
  ldflags+=" -X $pkg/pkg/chartutil.k8sVersionMajor=1 -X $pkg/pkg/chartutil.k8sVersionMinor=$minor"
  ldflags+=" -X $pkg/pkg/lint/rules.k8sVersionMajor=1 -X $pkg/pkg/lint/rules.k8sVersionMinor=$minor"
  GOBIN="$TOOLS_DIR" CGO_ENABLED=0 go install -trimpath -ldflags "$ldflags" "$pkg/cmd/helm@$HELM_VERSION" >&2 || {
    echo "helm: go install $pkg/cmd/helm@$HELM_VERSION failed" >&2
    return 1
  }
  [ "$("$HELM_BIN" version --template '{{.Version}}' 2>/dev/null)" = "$HELM_VERSION" ] || {
    echo "helm: $HELM_BIN does not report $HELM_VERSION" >&2
    return 1
  }
}
