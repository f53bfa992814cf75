# Fetches the Compose Specification JSON schema into the git-ignored .tools dir,
# so deploy/test/container.test.ts can validate docker-compose.yml offline.
# Sourced by scripts; `ensure_compose_schema` is idempotent: a schema of the
# pinned version already in .tools is reused. Run from the repository root, or
# set TOOLS_DIR.
#
# The schema comes from the Go module docker compose itself loads files with
# (compose-go embeds schema/compose-spec.json and validates every file against
# it), through the Go module proxy: the proxy serves a checksummed zip of that
# exact version (verified against sum.golang.org), so what the test checks
# against is what `docker compose` built on that version enforces, not a copy
# someone republished on npm at some earlier point.

COMPOSE_GO_VERSION=v2.16.2
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
COMPOSE_SCHEMA="$TOOLS_DIR/compose-spec.json"
COMPOSE_SCHEMA_MARKER="$TOOLS_DIR/.compose-spec-$COMPOSE_GO_VERSION"

ensure_compose_schema() {
  [ -f "$COMPOSE_SCHEMA" ] && [ -f "$COMPOSE_SCHEMA_MARKER" ] && return 0
  command -v go >/dev/null 2>&1 || { echo "compose-schema: Go is needed to download compose-go $COMPOSE_GO_VERSION" >&2; return 1; }
  echo "compose-schema: downloading github.com/compose-spec/compose-go/v2@$COMPOSE_GO_VERSION (Go module proxy)" >&2
  mkdir -p "$TOOLS_DIR"
  local scratch dir
  scratch=$(mktemp -d)
  # A module cache of our own under .tools; -modcacherw leaves it deletable with rm -rf.
  dir=$(cd "$scratch" && GOMODCACHE="$TOOLS_DIR/go-mod" GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw -mod=mod" \
    go mod download -json "github.com/compose-spec/compose-go/v2@$COMPOSE_GO_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rmdir "$scratch"
  [ -n "$dir" ] && [ -f "$dir/schema/compose-spec.json" ] || {
    echo "compose-schema: could not download compose-go $COMPOSE_GO_VERSION (or it has no schema/compose-spec.json)" >&2
    return 1
  }
  # Atomically, so an interrupted run never leaves half a schema behind a marker.
  cp "$dir/schema/compose-spec.json" "$COMPOSE_SCHEMA.tmp" && chmod 644 "$COMPOSE_SCHEMA.tmp" && mv -f "$COMPOSE_SCHEMA.tmp" "$COMPOSE_SCHEMA" || return 1
  rm -f "$TOOLS_DIR"/.compose-spec-*
  touch "$COMPOSE_SCHEMA_MARKER"
  echo "compose-schema: $COMPOSE_SCHEMA ($COMPOSE_GO_VERSION)" >&2
}
