# PostgreSQL for the test stores: FerretDB's postgresql backend, rather than
# its SQLite one, answers a filter on a field (`{ownerId: ...}`, `{app: ...}`)
# in SQL; the SQLite backend reads and decodes the whole collection for every
# query but one by _id, which made identity's reads cost as much as the
# collection was large (docs/reliability.md: 2.3 s for a count over 40k
# request-log entries, 87 ms on PostgreSQL). Debian's postgresql package; a
# scratch cluster per run, on loopback, without durability (test data).
# Sourced by scripts/lib/provision.sh.

# Exports PG_BIN, the newest installed PostgreSQL's bin directory; installs
# Debian's postgresql when there is none.
ensure_postgres() {
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$PG_BIN" ]; then
    echo "provision: installing postgresql (apt)" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get install -y -qq postgresql-common >&2 || return 1
    # A cluster of our own per run: Debian's package must not start one of its own.
    $sudo sed -i 's/^#\?create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf
    $sudo apt-get install -y -qq postgresql >&2 || return 1
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [ -n "$PG_BIN" ] || { echo "provision: postgresql installed, but no /usr/lib/postgresql/*/bin" >&2; return 1; }
  fi
  export PG_BIN
}

# PostgreSQL refuses to run as root: as root, its commands run as the
# package's postgres user, which then owns the cluster's directory.
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_postgres DIR PORT: a new cluster in DIR, listening on 127.0.0.1:PORT
# (its socket in DIR too), with an empty database `ferretdb`. Durability is off
# (fsync, synchronous commit, full-page writes): a crash loses test data only.
start_postgres() {
  local dir=$1 port=$2
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  as_postgres "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { echo "provision: initdb failed: $(tail -5 "$dir/initdb.log")" >&2; return 1; }
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 30 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { echo "provision: postgres did not start: $(tail -5 "$dir/postgres.log")" >&2; return 1; }
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres ferretdb || return 1
}

stop_postgres() {
  local dir=$1
  [ -d "$dir/data" ] && as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
  return 0
}
