#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests: listens on 127.0.0.1 only, on a private
# port, with a private data folder under /tmp and trust authentication. fsync is
# off: a test server must survive a process crash (it does: the WAL is in the
# page cache), not a power cut. IDEM_TEST_POSTGRES_FSYNC=on makes a server
# that flushes every commit, as production does (the benchmark's setting; it
# applies when the folder is first made, so stop the server before changing it).
#
#   postgres.sh start     initialise if needed, start, wait until it answers;
#                         a second start while it runs changes nothing
#   postgres.sh stop      stop it and delete its folder (test data only)
#   postgres.sh restart   crash-restart in place, keeping the data (tests use it)
#   postgres.sh status    exit 0 while it runs
#   postgres.sh url       print the connection URL
#
# start writes IDEM_TEST_POSTGRES_URL=… into build/test-servers.env, keeping the
# other lines; stop removes it. The port (IDEM_TEST_POSTGRES_PORT) defaults to one
# derived from the checkout path, so two checkouts on one machine do not collide.
# A test that needs a private server of its own sets IDEM_TEST_POSTGRES_PORT,
# IDEM_TEST_SERVERS_DIR and IDEM_TEST_SERVERS_ENV (the env file to write).
# PostgreSQL refuses to run as root: as root, the server runs as user postgres.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/lib/test_server.sh"
slot=$(( $(printf '%s' "$root" | cksum | cut -d' ' -f1) % 1000 ))
# Below 32768: ports in the kernel's ephemeral range (32768-60999) can be taken by
# any outgoing connection, which made a server fail to bind now and then.
port="${IDEM_TEST_POSTGRES_PORT:-$((23000 + slot))}"
dir="${IDEM_TEST_SERVERS_DIR:-/tmp/idem-test-servers-$slot}/postgres"
data="$dir/data"
env_file="${IDEM_TEST_SERVERS_ENV:-$root/build/test-servers.env}"
url="postgresql://idem@127.0.0.1:$port/idem_test"

bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
  if command -v pg_ctl >/dev/null; then bindir="$(dirname "$(command -v pg_ctl)")"; else
    echo "postgres.sh: PostgreSQL server binaries not found (install the 'postgresql' package:" \
         "scripts/install-deps.sh)" >&2
    exit 1
  fi
fi

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

running() { [ -f "$data/PG_VERSION" ] && as_owner "$bindir/pg_ctl" status -D "$data" >/dev/null 2>&1; }

init() {
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
  as_owner "$bindir/initdb" -D "$data" -U idem --auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = ${IDEM_TEST_POSTGRES_FSYNC:-off}
full_page_writes = ${IDEM_TEST_POSTGRES_FSYNC:-off}
max_connections = 200
CONF
}

start() {
  if running; then set_env_line IDEM_TEST_POSTGRES_URL "$url"; return; fi
  if port_taken; then
    echo "postgres.sh: port $port is used by another program; set IDEM_TEST_POSTGRES_PORT" >&2
    exit 1
  fi
  [ -f "$data/PG_VERSION" ] || init
  as_owner "$bindir/pg_ctl" start -D "$data" -l "$dir/server.log" -w -t 60 >/dev/null ||
    { tail -n 20 "$dir/server.log" >&2; exit 1; }
  local maint="postgresql://idem@127.0.0.1:$port/postgres"
  if [ -z "$(psql "$maint" -tAc "SELECT 1 FROM pg_database WHERE datname = 'idem_test'")" ]; then
    psql "$maint" -qc "CREATE DATABASE idem_test" >/dev/null
  fi
  set_env_line IDEM_TEST_POSTGRES_URL "$url"
}

stop() {
  if running; then as_owner "$bindir/pg_ctl" stop -D "$data" -m fast -w -t 60 >/dev/null; fi
  rm -rf "$dir"
  rmdir "$(dirname "$dir")" 2>/dev/null || true  # the other server may still use it
  set_env_line IDEM_TEST_POSTGRES_URL ""
}

restart() {
  running || { echo "postgres.sh: not running; use start" >&2; exit 1; }
  as_owner "$bindir/pg_ctl" restart -D "$data" -m immediate -l "$dir/server.log" -w -t 60 >/dev/null
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) restart ;;
  status) running ;;
  url) echo "$url" ;;
  *) echo "usage: $0 start|stop|restart|status|url" >&2; exit 2 ;;
esac
