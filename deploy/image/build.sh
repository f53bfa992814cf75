#!/usr/bin/env bash
# `npm run image`: builds the project's own Dockerfile with buildah (no
# container engine or daemon needed) into local container storage, as
# training-sandbox:<version> and training-sandbox:dev (what docker-compose.yml
# runs), and writes to .image/:
#   training-sandbox-<version>.oci.tar  the image as an OCI archive (load it with
#                                       `podman load` or `docker load`, push it with skopeo)
#   sbom.cdx.json                       its npm packages (CycloneDX, by cyclonedx-npm)
#   debian-packages.txt                 its Debian packages (dpkg-query, from the image)
#   build.env                           base, digest, size and build time
# The base is the official node:<major>-bookworm-slim when a registry answers,
# otherwise one built here from Debian packages (deploy/image/node-base.sh).
# NODE_IMAGE=<image> picks a base yourself; IMAGE_NAME renames the image.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/node.sh
source scripts/lib/containers.sh
ensure_containers

IMAGE_NAME="${IMAGE_NAME:-training-sandbox}"
version=$(node -p 'require("./package.json").version')
major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' Dockerfile)
started=$(date +%s)

base="${NODE_IMAGE:-}"
if [ -z "$base" ]; then
  official="docker.io/library/node:$major-bookworm-slim"
  if timeout 300 buildah pull --quiet "$official" >/dev/null 2>"${TMPDIR:-/tmp}/image-pull.err"; then
    base="$official"
  else
    echo "image: $official cannot be pulled ($(tail -n 1 "${TMPDIR:-/tmp}/image-pull.err" | cut -c1-160)); using a base built from Debian packages" >&2
    base=$(bash deploy/image/node-base.sh)
  fi
fi
echo "image: building $IMAGE_NAME:$version FROM $base" >&2

# --network host: the build stages' `npm ci` reaches the npm registry as this
# machine does, and trusts what this machine's Node trusts (a TLS-inspecting
# proxy's CA), given as a build secret so no layer keeps it. --layers: an
# unchanged step (the dependency installs) is reused.
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
secret=()
[ -f "$ca_bundle" ] && secret=(--secret "id=extra_ca,src=$ca_bundle")
buildah build --quiet --layers --network host "${secret[@]}" \
  --build-arg NODE_IMAGE="$base" \
  --tag "$IMAGE_NAME:$version" --tag "$IMAGE_NAME:dev" \
  --file Dockerfile . >/dev/null
built=$(date +%s)

mkdir -p .image
archive=".image/$IMAGE_NAME-$version.oci.tar"
rm -f "$archive"
buildah push --quiet "$IMAGE_NAME:$version" "oci-archive:$archive:$IMAGE_NAME:$version" >/dev/null
id=$(buildah inspect --type image --format '{{.FromImageID}}' "$IMAGE_NAME:$version")
size=$(podman image inspect --format '{{.Size}}' "$IMAGE_NAME:$version")

# What is inside: the npm packages the prod-deps stage installed from the same
# lockfile, and the Debian packages read from the image itself.
# (`npm sbom` leaves out what the workspaces depend on; CycloneDX's own npm
# generator does not.)
npx --no-install cyclonedx-npm --omit dev --package-lock-only --flatten-components --output-reproducible \
  --mc-type application --output-file .image/sbom.cdx.json 2>/dev/null
podman run --rm --network none --user 10001:10001 --read-only "$IMAGE_NAME:$version" \
  dpkg-query -W -f '${Package} ${Version}\n' > .image/debian-packages.txt

cat > .image/build.env <<REPORT
IMAGE=$IMAGE_NAME:$version
IMAGE_ID=sha256:$id
BASE=$base
SIZE_BYTES=$size
ARCHIVE=$archive
ARCHIVE_BYTES=$(stat -c %s "$archive")
BUILD_SECONDS=$((built - started))
TOTAL_SECONDS=$(($(date +%s) - started))
NPM_PACKAGES=$(node -p 'require("./.image/sbom.cdx.json").components.length')
DEBIAN_PACKAGES=$(wc -l < .image/debian-packages.txt)
REPORT
cat .image/build.env >&2
