# Shared by up.sh, down.sh and the cluster test's runner: names, paths and the
# way into the node's namespaces. Sourced; sets -u safe.
CLUSTER_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=versions.env
. "$CLUSTER_HERE/versions.env"
STATE="${CLUSTER_STATE_DIR:-/var/lib/training-sandbox-cluster}"
RUN="$STATE/run"
LOGS="$STATE/logs"
PKI="$STATE/pki"
NETNS=training-sandbox-node
NODE_NAME=sandbox-node
CGROUP_ROOT=training-sandbox-cluster
CONTAINERD_SOCK="$RUN/containerd/containerd.sock"
PAUSE_IMAGE=localhost/training-sandbox-cluster/pause:catatonit-0.1.7
COREDNS_IMAGE="localhost/training-sandbox-cluster/coredns:${COREDNS_VERSION#v}"

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: $*" >&2; exit 1; }

# A pid file holds "PID STARTTIME" (field 22 of /proc/PID/stat), so a pid the
# kernel has since given to another process is never taken for ours.
starttime() { awk '{ sub(/^.*\) /, ""); print $20 }' "/proc/$1/stat" 2>/dev/null; }
record_pid() { echo "$2 $(starttime "$2")" >"$RUN/pids/$1"; }
recorded_pid() { # NAME: prints the pid if that process is still the one recorded
  local pid st
  [ -f "$RUN/pids/$1" ] && read -r pid st <"$RUN/pids/$1" || return 1
  [ -n "$pid" ] && [ "$(starttime "$pid")" = "$st" ] && echo "$pid"
}
holder_pid() { recorded_pid holder; }
# Runs a command in the node's network and mount namespaces. nsenter, not
# `ip netns exec`: that remounts /sys, hiding the cgroup mounts runc needs.
node_exec() {
  local h; h=$(holder_pid)
  nsenter "--mount=/proc/$h/ns/mnt" "--net=/run/netns/$NETNS" -- "$@"
}
# node_start NAME CMD...: a daemon in the node's namespaces, in a session of
# its own, its pid in $RUN/pids/NAME and its output in $LOGS/NAME.log
node_start() {
  local name=$1; shift
  setsid nsenter "--mount=/proc/$(holder_pid)/ns/mnt" "--net=/run/netns/$NETNS" -- "$@" </dev/null >"$LOGS/$name.log" 2>&1 &
  record_pid "$name" $!
}
wait_for() { # what seconds cmd...
  local what=$1 secs=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || die "$what: not ready after ${secs}s (logs in $LOGS)"
    sleep 1
  done
}
cluster_running() {
  local p
  for n in holder etcd kube-apiserver containerd kubelet kube-proxy api-forward-host; do
    p=$(recorded_pid "$n") || return 1
  done
  [ -f "$STATE/admin.kubeconfig" ]
}
# every cgroup v1 hierarchy (and the v2 one, where runc also places things on
# a hybrid machine) the kubelet's cgroupRoot lives in
cgroup_dirs() {
  awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts | sort -u
}
free_tcp_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
