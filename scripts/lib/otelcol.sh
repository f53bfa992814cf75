# Builds a minimal OpenTelemetry Collector into the git-ignored .tools dir, for
# the tracing suite (services/gateway/test/integration/tracing.test.ts): a
# real trace backend nobody here wrote, which takes the services' spans over
# OTLP/HTTP (the protocol of the services' exporter,
# @opentelemetry/exporter-trace-otlp-proto) and writes them as OTLP JSON lines
# to a file the suite reads. There is no collector package here and only the
# package registries are reachable, so it is built with Go from the module
# proxy, as toxiproxy is, by the collector's own builder (ocb) from a build
# configuration that names only those two components. Sourced by scripts;
# `ensure_otelcol` is idempotent: a binary of the pinned version already in
# .tools is reused. Run from the repository root, or set TOOLS_DIR.
#
# Why this and not Jaeger (which the suite used first): Jaeger's binary
# compiles every storage backend's client and took 1,108 s to build with empty
# Go caches here; this one compiles the receiver, the exporter and the
# collector's core only (figures in docs/decisions.md, "Tracing").

# Every collector module at one release, as the collector's releases are
# made and tested together (the builder generates code against that core);
# v0.161.0 is the newest whose contrib fileexporter the module proxy serves
# whole here. The core's stable modules (the confmap providers) carry v1
# numbers: v1.67.0 is the one released with v0.161.0. The builder itself is
# pinned to the same release, since it writes code for that release's API.
OTELCOL_VERSION=v0.161.0
OTELCOL_STABLE_VERSION=v1.67.0
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
OTELCOL_BIN="${OTELCOL_BIN:-$TOOLS_DIR/otelcol-$OTELCOL_VERSION}"

# The builder's configuration: the OTLP receiver, the file exporter, and the
# file and env config providers (the suite passes --config=file:…; the
# collector refuses to start without env, its default scheme for ${VAR}); no
# processors, no extensions, none of the default providers that fetch config
# over HTTP.
otelcol_builder_config() { # output_path
  cat <<EOF
dist:
  module: sandbox/otelcol
  name: otelcol
  description: OpenTelemetry Collector for the sandbox's tracing suite (OTLP in, OTLP JSON file out)
  version: ${OTELCOL_VERSION#v}
  output_path: $1
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver $OTELCOL_VERSION
exporters:
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/fileexporter $OTELCOL_VERSION
providers:
  - gomod: go.opentelemetry.io/collector/confmap/provider/envprovider $OTELCOL_STABLE_VERSION
  - gomod: go.opentelemetry.io/collector/confmap/provider/fileprovider $OTELCOL_STABLE_VERSION
EOF
}

# The builder is installed from its module into a scratch GOBIN; it then
# writes the collector's sources and go.mod into the scratch dir, runs go mod
# tidy, and compiles with -trimpath, -ldflags "-s -w" and CGO_ENABLED=0 (its
# defaults, so there is nothing left to trim). Its TMPDIR is the scratch dir:
# it makes an empty default output dir there even when given output_path.
ensure_otelcol() {
  if [ ! -x "$OTELCOL_BIN" ]; then
    command -v go >/dev/null 2>&1 || { echo "otelcol: Go is needed to build the OpenTelemetry Collector $OTELCOL_VERSION" >&2; return 1; }
    echo "otelcol: building the OpenTelemetry Collector $OTELCOL_VERSION (ocb) with $(go version | cut -d' ' -f3)" >&2
    mkdir -p "$(dirname "$OTELCOL_BIN")"
    local scratch builder=go.opentelemetry.io/collector/cmd/builder
    scratch=$(mktemp -d)
    otelcol_builder_config "$scratch/build" >"$scratch/builder-config.yaml"
    if ! GOBIN="$scratch/bin" CGO_ENABLED=0 go install -trimpath "$builder@$OTELCOL_VERSION" >&2 ||
      ! TMPDIR="$scratch" "$scratch/bin/builder" --config="$scratch/builder-config.yaml" >&2; then
      rm -rf "$scratch"
      echo "otelcol: building the collector with $builder@$OTELCOL_VERSION failed" >&2
      return 1
    fi
    mv "$scratch/build/otelcol" "$OTELCOL_BIN" && rm -rf "$scratch" || return 1
  fi
  export OTELCOL_BIN
}
