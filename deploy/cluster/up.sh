#!/usr/bin/env bash
# up.sh: brings up a real one-node Kubernetes cluster (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, containerd + runc, a kubelet,
# kube-proxy in iptables mode, the bridge CNI and CoreDNS) inside a network
# namespace and a mount namespace of its own, and prints the path of an admin
# kubeconfig that works from this machine (https://127.0.0.1:PORT).
# Idempotent: when the cluster is already up it only prints the kubeconfig.
# deploy/cluster/down.sh removes everything this made.
#
# Layout (see docs/cluster.md):
#   network namespace $NETNS: lo, a portless bridge node0 holding NODE_IP with the only
#     (default) route, so no packet can leave; cni0 (the pods' bridge);
#     kube-proxy's iptables rules. There is no link to the host's namespace.
#   mount namespace (held by a `sleep` whose pid is in $RUN/pids/holder): `/`
#     is rshared in it (kubelet and containerd need mount propagation, the
#     host's `/` is private); the kubelet's volumes, containerd's snapshots and
#     the pods' netns files are mounted there only.
#   cgroups: /sys/fs/cgroup/<controller>/$CGROUP_ROOT (the kubelet's cgroupRoot).
#   the host side: one forwarder from 127.0.0.1:API_PORT to the API server
#     through a unix socket (forward.mjs).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

t0=$(date +%s)
if cluster_running; then
  echo "cluster: already up" >&2
  echo "$STATE/admin.kubeconfig"
  exit 0
fi
if [ -e "$STATE" ] || [ -e "/run/netns/$NETNS" ]; then
  echo "cluster: leftovers of an earlier cluster: running down.sh first" >&2
  bash "$HERE/down.sh" >&2
fi

# --- what it needs -----------------------------------------------------------
missing=()
for p in $CLUSTER_APT_PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} (Debian)"
  apt-get install -y --no-install-recommends "${missing[@]}" >&2 || { apt-get update >&2 && apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
fi
BIN=$(nice -n 19 bash "$HERE/build.sh")
# the forwarders run on the project's Node line
NODE=$(cd "$ROOT" && . scripts/lib/node.sh && ensure_node >&2 && command -v node)

mkdir -p "$STATE" "$RUN/pids" "$LOGS" "$PKI"
chmod 700 "$STATE"

# --- certificates ------------------------------------------------------------
gen_pki() {
  local o=(-loglevel error)
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 365 -subj "/CN=training-sandbox-cluster-ca" 2>/dev/null
  # name CN O [SANs]
  cert() {
    local name=$1 cn=$2 org=$3 san=${4:-}
    openssl req -newkey rsa:2048 -nodes -keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "/CN=$cn${org:+/O=$org}" 2>/dev/null
    {
      echo "basicConstraints=CA:FALSE"
      echo "keyUsage=critical,digitalSignature,keyEncipherment"
      if [ -n "$san" ]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=$san"; else echo "extendedKeyUsage=clientAuth"; fi
    } >"$PKI/$name.ext"
    openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -out "$PKI/$name.crt" -days 365 -extfile "$PKI/$name.ext" 2>/dev/null
    rm -f "$PKI/$name.csr" "$PKI/$name.ext"
  }
  cert apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$CLUSTER_DOMAIN,DNS:localhost,IP:127.0.0.1,IP:$NODE_IP,IP:$KUBERNETES_SVC_IP"
  cert admin cluster-admin system:masters
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters
  cert controller-manager system:kube-controller-manager ""
  cert scheduler system:kube-scheduler ""
  cert kubelet "system:node:$NODE_NAME" system:nodes
  cert kube-proxy system:kube-proxy ""
  cert kubelet-serving "system:node:$NODE_NAME" system:nodes "DNS:$NODE_NAME,IP:$NODE_IP"
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  chmod 600 "$PKI"/*.key
}
kubeconfig() { # file user server
  cat >"$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: training-sandbox
  cluster: {certificate-authority: $PKI/ca.crt, server: "$3"}
users:
- name: $2
  user: {client-certificate: $PKI/$2.crt, client-key: $PKI/$2.key}
contexts:
- name: training-sandbox
  context: {cluster: training-sandbox, user: $2}
current-context: training-sandbox
KC
  chmod 600 "$1"
}
log "certificates"
gen_pki
for u in controller-manager scheduler kubelet kube-proxy admin; do kubeconfig "$STATE/$u.kubeconfig" "$u" "https://$NODE_IP:6443"; done
# the node-side admin kubeconfig (for commands run inside the node namespace)
mv "$STATE/admin.kubeconfig" "$STATE/node-admin.kubeconfig"

# --- network namespace -------------------------------------------------------
log "network namespace $NETNS"
ip netns add "$NETNS"
NS=(nsenter "--net=/run/netns/$NETNS")
"${NS[@]}" ip link set lo up
# the node's own interface: a bridge with no port (this kernel has no dummy
# driver), so a packet routed into it goes nowhere
"${NS[@]}" ip link add node0 type bridge
"${NS[@]}" ip addr add "$NODE_IP/32" dev node0
"${NS[@]}" ip link set node0 up
# the only route out of the node is into node0, which has no port and drops
# everything: Service IPs need a route for kube-proxy's DNAT to happen, and
# nothing may reach past this namespace
"${NS[@]}" ip route add default dev node0
"${NS[@]}" sysctl -q -w net.ipv4.ip_forward=1
# per network namespace since Linux 5.3: bridged pod-to-pod replies pass
# through iptables, so a Service's DNAT is undone on the way back
"${NS[@]}" sysctl -q -w net.bridge.bridge-nf-call-iptables=1 || true

# --- mount namespace ---------------------------------------------------------
log "mount namespace"
# The kubelet insists on vm.overcommit_memory=1, kernel.panic=10,
# kernel.panic_on_oops=1 (and two key quotas) and would set them for the whole
# machine; with protectKernelDefaults it refuses to start instead. Inside the
# node's own mount namespace, files holding the values it expects are bound
# over those /proc/sys entries: it reads them, the machine keeps its own.
mkdir -p "$STATE/sysctl"
# Paths containerd 1.6, libcni and the kubelet write to whatever they are
# told (pods' netns bind mounts in /run/netns, shim sockets and runc state in
# /run/containerd, libcni's cache in /var/lib/cni, the kubelet's
# device-plugins socket in /var/lib/kubelet) get a tmpfs of their own in the
# node's mount namespace, so nothing of theirs lands on the host. A mount
# point the host lacks is made here and recorded, and down.sh removes it.
holder_script='set -e; mount --make-rshared /; '
: >"$STATE/created-paths"
for d in /run/netns /run/containerd /var/lib/cni /var/lib/kubelet; do
  [ -d "$d" ] || { mkdir -p "$d" && echo "$d" >>"$STATE/created-paths"; }
  holder_script+="mount -t tmpfs -o mode=0755,size=64m training-sandbox-node $d; "
done
for kv in vm/overcommit_memory=1 vm/panic_on_oom=0 kernel/panic=10 kernel/panic_on_oops=1 kernel/keys/root_maxkeys=1000000 kernel/keys/root_maxbytes=25000000; do
  k=${kv%%=*} v=${kv#*=}
  if [ "$(cat "/proc/sys/$k")" != "$v" ]; then
    f="$STATE/sysctl/${k//\//.}"; echo "$v" >"$f"
    holder_script+="mount --bind $f /proc/sys/$k; "
  fi
done
holder_script+='exec sleep infinity'
setsid unshare --mount --propagation private -- sh -c "$holder_script" </dev/null >"$LOGS/holder.log" 2>&1 &
record_pid holder $!
holder_ready() { [ "$(tr '\0' ' ' <"/proc/$(holder_pid)/cmdline" 2>/dev/null | cut -c1-5)" = sleep ] && [ "$(readlink "/proc/$(holder_pid)/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ]; }
for _ in $(seq 50); do holder_ready && break; sleep 0.1; done
holder_ready || die "mount namespace holder did not start: $(cat "$LOGS/holder.log")"

# --- cgroups -----------------------------------------------------------------
for d in $(cgroup_dirs); do
  mkdir -p "$d/$CGROUP_ROOT"
  case $d in */cpuset) cat "$d/cpuset.cpus" >"$d/$CGROUP_ROOT/cpuset.cpus"; cat "$d/cpuset.mems" >"$d/$CGROUP_ROOT/cpuset.mems" ;; esac
done

# --- etcd and the control plane ----------------------------------------------
log "etcd"
node_start etcd "$BIN/etcd" --name "$NODE_NAME" --data-dir "$STATE/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster "$NODE_NAME=http://127.0.0.1:2380" --listen-metrics-urls http://127.0.0.1:2381 \
  --quota-backend-bytes 1073741824 --log-level warn
wait_for "etcd health" 30 node_exec curl -fsS http://127.0.0.1:2381/health

log "kube-apiserver"
node_start kube-apiserver "$BIN/kube-apiserver" \
  --etcd-servers http://127.0.0.1:2379 \
  --bind-address 0.0.0.0 --secure-port 6443 --advertise-address "$NODE_IP" \
  --service-cluster-ip-range "$SERVICE_CIDR" --service-node-port-range 30000-32767 \
  --client-ca-file "$PKI/ca.crt" --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
  --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP \
  --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
  --service-account-issuer "https://kubernetes.default.svc.$CLUSTER_DOMAIN" \
  --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
  --allow-privileged=false --profiling=false --endpoint-reconciler-type lease
KA=(node_exec "$BIN/kubectl" --kubeconfig "$STATE/node-admin.kubeconfig")
wait_for "kube-apiserver /readyz" 90 "${KA[@]}" get --raw /readyz

log "kube-controller-manager, kube-scheduler"
node_start kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig "$STATE/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$STATE/controller-manager.kubeconfig" --authorization-kubeconfig "$STATE/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
  --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
  --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
  --service-cluster-ip-range "$SERVICE_CIDR" --controllers '*,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller'
node_start kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$STATE/scheduler.kubeconfig" \
  --authentication-kubeconfig "$STATE/scheduler.kubeconfig" --authorization-kubeconfig "$STATE/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false

# --- containerd --------------------------------------------------------------
log "containerd"
mkdir -p "$STATE/cni/net.d" "$STATE/containerd"
cat >"$STATE/cni/net.d/10-sandbox.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "training-sandbox",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
              "dataDir": "$STATE/cni/ipam"}}
  ]
}
JSON
cat >"$STATE/containerd/config.toml" <<TOML
version = 2
root = "$STATE/containerd/root"
state = "$RUN/containerd"
oom_score = 0
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$RUN/containerd/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  # root here lacks CAP_SYS_RESOURCE: an oom_score_adj below the caller's
  # would be refused, so containerd keeps every container at or above its own
  restrict_oom_score_adj = true
  enable_selinux = false
  disable_apparmor = true
  max_container_log_line_size = 16384
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(command -v runc)"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
TOML
node_start containerd containerd --config "$STATE/containerd/config.toml"
CTR=(node_exec ctr --address "$CONTAINERD_SOCK" -n k8s.io)
wait_for "containerd" 30 "${CTR[@]}" version

log "pause and CoreDNS images"
img="$STATE/images"; mkdir -p "$img/pause" "$img/coredns"
cp /usr/bin/catatonit "$img/pause/catatonit"
bash "$HERE/mkimage.sh" "$img/pause" "$PAUSE_IMAGE" "$img/pause.tar" /catatonit -P
cp "$BIN/coredns" "$img/coredns/coredns"
bash "$HERE/mkimage.sh" "$img/coredns" "$COREDNS_IMAGE" "$img/coredns.tar" /coredns
"${CTR[@]}" images import "$img/pause.tar" >&2
"${CTR[@]}" images import "$img/coredns.tar" >&2
rm -rf "$img"

# --- kubelet and kube-proxy --------------------------------------------------
log "kubelet"
: >"$STATE/resolv.conf"  # pods with dnsPolicy Default get no nameserver of the host's
cat >"$STATE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $PKI/kubelet-serving.crt
tlsPrivateKeyFile: $PKI/kubelet-serving.key
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
# cgroup v1 only on these machines, and no systemd
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
# root here may not lower an oom_score_adj
oomScoreAdj: 0
# read the kernel settings, never write them (see the mount namespace above)
protectKernelDefaults: true
failSwapOn: false
clusterDNS: [$DNS_SVC_IP]
clusterDomain: $CLUSTER_DOMAIN
resolvConf: $STATE/resolv.conf
# the disk and memory are shared with whatever else runs on this machine
evictionHard: {memory.available: 200Mi, nodefs.available: 2%, imagefs.available: 2%, nodefs.inodesFree: 2%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
maxPods: 60
YAML
node_start kubelet "$BIN/kubelet" --config "$STATE/kubelet.yaml" --kubeconfig "$STATE/kubelet.kubeconfig" \
  --root-dir "$STATE/kubelet" --cert-dir "$STATE/kubelet-pki" --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" \
  --v 1

log "kube-proxy"
cat >"$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
mode: iptables
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# 0: leave nf_conntrack_max and the conntrack timeouts as the machine has them
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {masqueradeAll: false, syncPeriod: 10s, minSyncPeriod: 0s}
YAML
node_start kube-proxy "$BIN/kube-proxy" --config "$STATE/kube-proxy.yaml"

node_ready() { [ "$("${KA[@]}" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" = True ]; }
wait_for "node $NODE_NAME Ready" 120 node_ready

# --- CoreDNS -----------------------------------------------------------------
log "CoreDNS"
sed -e "s#@COREDNS_IMAGE@#$COREDNS_IMAGE#g" -e "s#@DNS_SVC_IP@#$DNS_SVC_IP#g" -e "s#@CLUSTER_DOMAIN@#$CLUSTER_DOMAIN#g" \
  "$HERE/manifests/coredns.yaml" | "${KA[@]}" apply -f - >&2
wait_for "CoreDNS Available" 120 "${KA[@]}" -n kube-system wait --for=condition=Available deployment/coredns --timeout=5s

# --- the host's way in -------------------------------------------------------
API_PORT=$(free_tcp_port)
node_start api-forward-node "$NODE" "$HERE/forward.mjs" "unix:$RUN/apiserver.sock" "tcp:$NODE_IP:6443"
wait_for "api forwarder socket" 10 test -S "$RUN/apiserver.sock"
setsid "$NODE" "$HERE/forward.mjs" "tcp:127.0.0.1:$API_PORT" "unix:$RUN/apiserver.sock" </dev/null >"$LOGS/api-forward-host.log" 2>&1 &
record_pid api-forward-host $!
kubeconfig "$STATE/admin.kubeconfig" admin "https://127.0.0.1:$API_PORT"
wait_for "API through 127.0.0.1:$API_PORT" 20 "$BIN/kubectl" --kubeconfig "$STATE/admin.kubeconfig" get --raw /readyz
echo "$BIN" >"$STATE/bin-dir"
echo $(( $(date +%s) - t0 )) >"$STATE/up-seconds"
log "up in $(( $(date +%s) - t0 )) s; kubectl: $BIN/kubectl --kubeconfig $STATE/admin.kubeconfig"
echo "$STATE/admin.kubeconfig"
