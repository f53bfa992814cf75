# Installs Prometheus for the tests of the chart's alert rules and dashboard:
# `promtool` checks the rules file and runs its unit tests
# (deploy/test/alerts.test.ts), and the `prometheus` server scrapes the running
# system and evaluates the rules (services/gateway/test/integration/
# prometheus.test.ts). Both come from Debian's `prometheus` package (2.42 on
# bookworm). Sourced by scripts/test.sh; `ensure_prometheus` is idempotent and
# exports PROMTOOL_BIN and PROMETHEUS_BIN.
#
# The package also ships a systemd unit and an init script that would start a
# Prometheus on port 9090 with a data dir in /var/lib/prometheus: nothing the
# tests want (each test starts its own server on a free loopback port), and
# 9090 is the port the chart's pods use for metrics. So the install runs under
# a policy-rc.d that refuses every service start (unless one is already in
# place, as in most container images), recommends (node-exporter, which
# would start too) are left out, and afterwards any prometheus service that
# still runs is stopped and disabled.

PROMTOOL_BIN="${PROMTOOL_BIN:-/usr/bin/promtool}"
PROMETHEUS_BIN="${PROMETHEUS_BIN:-/usr/bin/prometheus}"

ensure_prometheus() {
  if [ ! -x "$PROMTOOL_BIN" ] || [ ! -x "$PROMETHEUS_BIN" ]; then
    echo "provision: installing prometheus (Debian package, for promtool and the server)" >&2
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    local policy=/usr/sbin/policy-rc.d placed_policy=""
    if [ ! -e "$policy" ]; then
      # invoke-rc.d asks this script before starting a service; 101 means "no".
      printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod 755 "$policy" && placed_policy=1
    fi
    local status=0
    $sudo apt-get update -qq >&2 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >&2 || status=$?
    [ -z "$placed_policy" ] || $sudo rm -f "$policy"
    [ "$status" -eq 0 ] || { echo "provision: prometheus could not be installed" >&2; return 1; }
    stop_packaged_prometheus
  fi
  [ -x "$PROMTOOL_BIN" ] && [ -x "$PROMETHEUS_BIN" ] || {
    echo "provision: no promtool at $PROMTOOL_BIN or no prometheus at $PROMETHEUS_BIN" >&2
    return 1
  }
  export PROMTOOL_BIN PROMETHEUS_BIN
}

# Stops and disables the package's own service if something started it anyway
# (a machine without policy-rc.d support, an install made outside this script).
# Only the packaged service is touched: systemd's unit, or the init script,
# whose stop matches the pid file in /run/prometheus, the binary and the user
# prometheus all at once; the tests' own servers run as the test's user with no
# pid file, so nothing here can stop them.
stop_packaged_prometheus() {
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now prometheus.service >&2 2>/dev/null || true
  elif [ -x /etc/init.d/prometheus ]; then
    $sudo /etc/init.d/prometheus stop >&2 2>/dev/null || true
    command -v update-rc.d >/dev/null 2>&1 && { $sudo update-rc.d prometheus disable >&2 2>/dev/null || true; }
  fi
}
