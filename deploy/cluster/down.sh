#!/usr/bin/env bash
# down.sh: removes everything up.sh made and ends only the processes it
# started: those whose pids it recorded, the containers in its cgroups and the
# processes living in its mount namespace (containerd's shims); never by name.
# Safe to run when nothing is up.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$HERE/lib.sh"

ours() { # pids: recorded, in our cgroups, or sharing the holder's mount namespace
  local h mnt p
  for f in "$RUN"/pids/*; do [ -f "$f" ] && recorded_pid "$(basename "$f")"; done 2>/dev/null
  for d in $(cgroup_dirs); do
    [ -d "$d/$CGROUP_ROOT" ] && find "$d/$CGROUP_ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null
  done
  h=$(holder_pid)
  # only while the holder is alive and really in a mount namespace of its own
  if [ -n "$h" ] && mnt=$(readlink "/proc/$h/ns/mnt" 2>/dev/null) && [ "$mnt" != "$(readlink /proc/self/ns/mnt)" ]; then
    for p in /proc/[0-9]*; do
      [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$mnt" ] && echo "${p#/proc/}"
    done
  fi
}
alive() { local n=0; for p in "$@"; do kill -0 "$p" 2>/dev/null && n=$((n+1)); done; echo $n; }

# the kubelet first, so it does not restart what is being stopped
for n in kubelet kube-proxy; do p=$(recorded_pid "$n") && kill "$p" 2>/dev/null; done
sleep 1
pids=$(ours | sort -u | grep -vx "$$" || true)
if [ -n "$pids" ]; then
  # shellcheck disable=SC2086
  kill $pids 2>/dev/null
  for _ in $(seq 20); do [ "$(alive $pids)" = 0 ] && break; sleep 0.5; done
  # shellcheck disable=SC2086
  [ "$(alive $pids)" = 0 ] || kill -9 $pids 2>/dev/null
  sleep 0.5
  pids=$(ours | sort -u || true)
  # shellcheck disable=SC2086
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null && sleep 0.5
fi

# cgroups, deepest first
for d in $(cgroup_dirs); do
  [ -d "$d/$CGROUP_ROOT" ] && find "$d/$CGROUP_ROOT" -depth -type d -exec rmdir {} \; 2>/dev/null
  [ -d "$d/$CGROUP_ROOT" ] && log "could not remove $d/$CGROUP_ROOT"
done
# the network namespace and with it cni0, the pods' veths and every iptables rule
[ -e "/run/netns/$NETNS" ] && ip netns delete "$NETNS"
# the mount points up.sh had to make on the host (empty here: what went into
# them was on the node's tmpfs)
if [ -f "$STATE/created-paths" ]; then
  while read -r d; do [ -n "$d" ] && rmdir "$d" 2>/dev/null; done <"$STATE/created-paths"
fi
# the mount namespace is gone with its last process; its mounts never reached
# the host's, so what is left is plain files
if [ -d "$STATE" ]; then
  if grep -q " $STATE" /proc/self/mounts; then
    log "mounts under $STATE are still visible here: leaving it"; grep " $STATE" /proc/self/mounts >&2
  else
    rm -rf "$STATE"
  fi
fi
log "down"
