# Builds the official MongoDB Database Tools' mongodump and mongorestore into
# the git-ignored .tools dir, for the restore drill
# (services/identity/test/integration/backup-restore.test.ts), which dumps and
# restores the test command's MongoDB-wire store with the same tools, and the
# same script, that the chart's backup CronJob runs (in the official mongo
# image). There is no Debian package of the tools and only
# the package registries are reachable, so they are built with Go from the
# module proxy, as FerretDB, helm and toxiproxy are. Sourced by scripts;
# `ensure_mongo_tools` is idempotent: binaries of the pinned version already in
# .tools are reused. Run from the repository root, or set TOOLS_DIR.
#
# Release 100.11.0 (January 2025), the newest release the module proxy serves
# here. The tools are tagged `100.x.y`, which is not a Go module version (no
# leading v), so the proxy knows a release only by its commit's
# pseudo-version; it refuses the version list and every release after
# 100.11.0 (checked down from 100.18.0, November 2026). 100.11.0 supports
# MongoDB 4.2 to 8.0, which covers both the chart's mongo image and FerretDB.
MONGO_TOOLS_VERSION=100.11.0
MONGO_TOOLS_MODULE=github.com/mongodb/mongo-tools
MONGO_TOOLS_PSEUDO=v0.0.0-20250131183507-b8a566a7f38f
# The checksum database has no entry for a pseudo-version nobody published,
# so it cannot vouch for the module: the script checks the zip's hash itself
# against this one (taken on first download; the tree was compared file by
# file with the 100.11.0 tag upstream). The tools' own dependencies are still
# checked against the checksum database as usual.
MONGO_TOOLS_SUM="h1:Xbo8OTSAov884rc8pIY/M00S4T4MYi5Dq2JRTeCUIFY="
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
MONGODUMP_BIN="${MONGODUMP_BIN:-$TOOLS_DIR/mongodump-$MONGO_TOOLS_VERSION}"
MONGORESTORE_BIN="${MONGORESTORE_BIN:-$TOOLS_DIR/mongorestore-$MONGO_TOOLS_VERSION}"

# `go install $MONGO_TOOLS_MODULE/mongodump/main@...` fails here (the proxy
# refuses the version list go install reads for deprecation notices, as for
# FerretDB), and each tool's package is named `main` in a directory `main`, so
# go install would name both binaries `main` anyway. So: download exactly that
# version, check its hash, build both tools from the module (its vendor
# directory is not in the module zip, hence -mod=mod), with the -ldflags the
# tools' own build script sets, so that `--version` names the release.
ensure_mongo_tools() {
  if [ ! -x "$MONGODUMP_BIN" ] || [ ! -x "$MONGORESTORE_BIN" ]; then
    command -v go >/dev/null 2>&1 || { echo "mongo-tools: Go is needed to build the MongoDB Database Tools $MONGO_TOOLS_VERSION" >&2; return 1; }
    echo "mongo-tools: building mongodump and mongorestore $MONGO_TOOLS_VERSION with $(go version | cut -d' ' -f3)" >&2
    mkdir -p "$TOOLS_DIR"
    local scratch json dir sum
    scratch=$(mktemp -d)
    json=$(cd "$scratch" && GONOSUMDB="$MONGO_TOOLS_MODULE" GOFLAGS=-mod=mod go mod download -json "$MONGO_TOOLS_MODULE@$MONGO_TOOLS_PSEUDO")
    dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    sum=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p')
    [ -n "$dir" ] || { rm -rf "$scratch"; echo "mongo-tools: could not download $MONGO_TOOLS_MODULE@$MONGO_TOOLS_PSEUDO: $json" >&2; return 1; }
    [ "$sum" = "$MONGO_TOOLS_SUM" ] || { rm -rf "$scratch"; echo "mongo-tools: $MONGO_TOOLS_MODULE@$MONGO_TOOLS_PSEUDO has hash $sum, expected $MONGO_TOOLS_SUM" >&2; return 1; }
    cp -r "$dir/." "$scratch/src" && chmod -R u+w "$scratch/src" && rm -rf "$scratch/src/vendor" || { rm -rf "$scratch"; return 1; }
    local ldflags="-s -w -X main.VersionStr=$MONGO_TOOLS_VERSION -X main.GitCommit=${MONGO_TOOLS_PSEUDO##*-}"
    local tool out
    for tool in mongodump mongorestore; do
      out=$MONGODUMP_BIN; [ "$tool" = mongorestore ] && out=$MONGORESTORE_BIN
      if ! (cd "$scratch/src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out" "./$tool/main") >&2; then
        rm -rf "$scratch"
        echo "mongo-tools: go build ./$tool/main failed" >&2
        return 1
      fi
    done
    rm -rf "$scratch"
  fi
  export MONGODUMP_BIN MONGORESTORE_BIN
}
