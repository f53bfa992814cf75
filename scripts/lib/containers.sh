# buildah (builds the project's Dockerfile with no engine or daemon), podman
# (runs what it built, in tests) and mmdebstrap (a Debian root file system for
# the local base image) from Debian packages, with the project's settings for
# them (deploy/image/containers.conf). Sourced by deploy/image/*.sh and the
# image test; `ensure_containers` is idempotent.

ensure_containers() {
  local missing=()
  command -v buildah >/dev/null 2>&1 || missing+=(buildah)
  command -v podman >/dev/null 2>&1 || missing+=(podman)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "containers: installing ${missing[*]} (Debian packages)" >&2
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2 || {
      echo "containers: could not install ${missing[*]}" >&2
      return 1
    }
  fi
  CONTAINERS_CONF="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/deploy/image/containers.conf"
  export CONTAINERS_CONF
}
