#!/usr/bin/env bash
# npm run test:cluster: builds (once) and brings up the one-node cluster,
# loads the image `npm run image` built into its containerd, starts Redis and
# FerretDB on this machine's loopback and makes them reachable to the pods at
# the node's address (through unix sockets: there is no route between the
# node's namespace and the host's), runs the cluster test inside the node's
# network namespace, and takes everything down again (KEEP_CLUSTER=1 keeps the
# cluster up for a look: deploy/cluster/down.sh removes it). CLUSTER_REUSE_IMAGE=1
# takes .image/'s archive as it is (the image of a work tree mid-edit may not build).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
. deploy/cluster/lib.sh
. scripts/lib/node.sh
ensure_node
t_start=$(date +%s)

# the image: reuse the archive when no source of it is newer, else build it
ARCHIVE=.image/training-sandbox-1.0.0.oci.tar
newest_source=$(git ls-files -z Dockerfile .dockerignore package.json package-lock.json proto packages services deploy/docker deploy/image |
  xargs -0 -r stat -c %Y 2>/dev/null | sort -n | tail -1)
if [ -f "$ARCHIVE" ] && [ "${CLUSTER_REUSE_IMAGE:-0}" = 1 ]; then
  log "image: CLUSTER_REUSE_IMAGE=1: reusing $ARCHIVE as it is"
elif [ -f "$ARCHIVE" ] && [ "$(stat -c %Y "$ARCHIVE")" -gt "${newest_source:-0}" ]; then
  log "image: $ARCHIVE is newer than its sources: reusing it"
else
  log "image: npm run image"
  nice -n 19 npm run image >&2
fi

KUBECONFIG_HOST=$(bash deploy/cluster/up.sh)
BIN=$(cat "$STATE/bin-dir")
source scripts/lib/helm.sh && ensure_helm
log "importing the image into the node's containerd"
# buildah names it training-sandbox:1.0.0 in the archive, which containerd
# 1.6's CRI takes for docker.io/library/training-sandbox and then cannot find
# (and --base-name filters it out); re-tagging after import leaves that stale
# name in the CRI's cache. So the archive is imported with its index carrying
# the full name the chart is given (io.containerd.image.name).
python3 - "$ROOT/$ARCHIVE" "$STATE/image.oci.tar" localhost/training-sandbox:1.0.0 <<'PY'
import json, sys, tarfile
src, dst, name = sys.argv[1:]
with tarfile.open(src) as tin, tarfile.open(dst, 'w') as tout:
    for m in tin:
        f = tin.extractfile(m) if m.isfile() else None
        if m.name.lstrip('./') == 'index.json':
            index = json.load(f)
            for d in index['manifests']:
                d.setdefault('annotations', {})['io.containerd.image.name'] = name
            data = json.dumps(index).encode()
            m.size = len(data)
            import io; f = io.BytesIO(data)
        tout.addfile(m, f)
PY
node_exec ctr --address "$CONTAINERD_SOCK" -n k8s.io images import "$STATE/image.oci.tar" >&2
rm -f "$STATE/image.oci.tar"

# the stores, on loopback, and their forwarders into the node
source scripts/lib/provision.sh
FWD=()
cleanup() {
  local rc=$?
  for p in "${FWD[@]}"; do kill "$p" 2>/dev/null; done
  stop_test_stores
  if [ "${KEEP_CLUSTER:-0}" = 1 ]; then log "KEEP_CLUSTER=1: the cluster stays up; kubeconfig $KUBECONFIG_HOST"; else bash deploy/cluster/down.sh; fi
  exit $rc
}
trap cleanup EXIT
start_test_stores
redis_port=${REDIS_URL##*:}; mongo_port=${MONGO_URL##*:}
for s in redis:$redis_port:6379 mongo:$mongo_port:27017; do
  IFS=: read -r name hostport nodeport <<<"$s"
  setsid node deploy/cluster/forward.mjs "unix:$RUN/$name.sock" "tcp:127.0.0.1:$hostport" </dev/null >"$LOGS/$name-forward-host.log" 2>&1 &
  FWD+=($!)
  node_start "$name-forward-node" "$(command -v node)" "$ROOT/deploy/cluster/forward.mjs" "tcp:$NODE_IP:$nodeport" "unix:$RUN/$name.sock"
  FWD+=("$(recorded_pid "$name-forward-node")")
done
wait_for "store forwarders" 20 node_exec bash -c "exec 3<>/dev/tcp/$NODE_IP/6379 && exec 4<>/dev/tcp/$NODE_IP/27017"

# one run tests one chart: a copy of the work tree's as it is now, or with
# CLUSTER_CHART_REF=<commit> the chart of that commit (e.g. the one the reused
# image was built from, while the work tree is mid-edit)
rm -rf "$STATE/chart" && mkdir -p "$STATE/chart"
if [ -n "${CLUSTER_CHART_REF:-}" ]; then
  git archive "$CLUSTER_CHART_REF" deploy/helm/training-sandbox | tar -x -C "$STATE/chart"
else
  mkdir -p "$STATE/chart/deploy/helm" && cp -r deploy/helm/training-sandbox "$STATE/chart/deploy/helm/"
fi
export CLUSTER_CHART="$STATE/chart/deploy/helm/training-sandbox"
mkdir -p .test-output
# the test kills a container's task with ctr (it runs in the node's network
# namespace only; ctr needs the node's mount namespace for containerd's socket)
printf '#!/bin/sh\nexec nsenter --mount=/proc/%s/ns/mnt -- ctr --address %s -n k8s.io "$@"\n' "$(holder_pid)" "$CONTAINERD_SOCK" >"$STATE/ctr"
chmod +x "$STATE/ctr"
export CLUSTER_CTR="$STATE/ctr" CLUSTER_KUBECTL="$BIN/kubectl" CLUSTER_HELM="$HELM_BIN" CLUSTER_DNS_IP="$DNS_SVC_IP" CLUSTER_STORE_HOST="$NODE_IP"
export CLUSTER_FIGURES="$ROOT/.test-output/cluster/figures.json"
export KUBECONFIG="$STATE/node-admin.kubeconfig"
export HELM_CACHE_HOME="$STATE/helm/cache" HELM_CONFIG_HOME="$STATE/helm/config" HELM_DATA_HOME="$STATE/helm/data"
echo "$(( $(date +%s) - t_start ))" >"$STATE/ready-seconds"
log "cluster ready $(( $(date +%s) - t_start )) s after start; running the test in the node's network namespace"
set +e
nsenter "--net=/run/netns/$NETNS" -- node node_modules/.bin/jest -c deploy/cluster/test/jest.cluster.config.js --runInBand "$@"
rc=$?
set -e
[ -f "$CLUSTER_FIGURES" ] && cp "$CLUSTER_FIGURES" "$ROOT/.test-output/cluster/figures-$(date +%Y%m%d-%H%M%S).json"
exit $rc
