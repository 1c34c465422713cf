#!/usr/bin/env bash
# A throwaway MariaDB for the tests: listens on 127.0.0.1 only, on a private
# port and socket, with a private data folder under /tmp. Durability settings
# are relaxed (no binary log, no flush at each commit): a test server must
# survive a process crash, not a power cut. IDEM_TEST_MYSQL_FSYNC=on flushes the
# redo log at every commit, as production does (the benchmark's setting; read
# at each start).
#
#   mariadb.sh start     initialise if needed, start, wait until it answers;
#                        a second start while it runs changes nothing
#   mariadb.sh stop      stop it and delete its folder (test data only)
#   mariadb.sh restart   SIGKILL and start again in place, keeping the data (tests use it)
#   mariadb.sh status    exit 0 while it answers
#   mariadb.sh url       print the connection URL
#
# start writes IDEM_TEST_MYSQL_URL=… into build/test-servers.env, keeping the
# other lines; stop removes it. The URL's user (idem, password idem) may create
# databases and kill sessions, which the tests do. The port
# (IDEM_TEST_MYSQL_PORT) defaults to one derived from the checkout path, so two
# checkouts on one machine do not collide.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/lib/test_server.sh"
slot=$(( $(printf '%s' "$root" | cksum | cut -d' ' -f1) % 1000 ))
# Below 32768, outside the kernel's ephemeral port range (see postgres.sh).
port="${IDEM_TEST_MYSQL_PORT:-$((21000 + slot))}"
dir="${IDEM_TEST_SERVERS_DIR:-/tmp/idem-test-servers-$slot}/mariadb"
data="$dir/data"
sock="$dir/mariadb.sock"
pidfile="$dir/mariadb.pid"
env_file="$root/build/test-servers.env"
url="mysql://idem:idem@127.0.0.1:$port/idem_test"

for tool in mariadb-install-db mariadbd mariadb; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || {
    echo "mariadb.sh: $tool not found (install the 'mariadb-server' package: scripts/install-deps.sh)" >&2
    exit 1
  }
done
mariadbd="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
user="$(id -un)"

as_admin() { mariadb --no-defaults --socket="$sock" -uroot "$@"; }
answers() { as_admin -e "SELECT 1" >/dev/null 2>&1; }
gone() { ! port_taken && ! our_pid >/dev/null; }

init() {
  mkdir -p "$dir"
  mariadb-install-db --no-defaults --datadir="$data" --user="$user" --auth-root-authentication-method=normal \
    --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
}

launch() {
  local flush_at_commit=2
  [[ ${IDEM_TEST_MYSQL_FSYNC:-off} == on ]] && flush_at_commit=1
  # The server forks nothing: run it in the background, detached from this shell.
  setsid "$mariadbd" --no-defaults --datadir="$data" --user="$user" --bind-address=127.0.0.1 --port="$port" \
    --socket="$sock" --pid-file="$pidfile" --log-error="$dir/server.log" --skip-name-resolve --skip-log-bin \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit="$flush_at_commit" \
    --max-connections=300 </dev/null >/dev/null 2>&1 &
  wait_for answers || { echo "mariadb.sh: mariadbd did not answer on port $port" >&2; tail -n 20 "$dir/server.log" >&2; exit 1; }
}

start() {
  if our_pid >/dev/null && answers; then set_env_line IDEM_TEST_MYSQL_URL "$url"; return; fi
  if port_taken; then
    echo "mariadb.sh: port $port is used by another program; set IDEM_TEST_MYSQL_PORT" >&2
    exit 1
  fi
  [ -d "$data/mysql" ] || init
  launch
  as_admin -e "CREATE DATABASE IF NOT EXISTS idem_test;
    CREATE USER IF NOT EXISTS 'idem'@'127.0.0.1' IDENTIFIED BY 'idem';
    GRANT ALL PRIVILEGES ON *.* TO 'idem'@'127.0.0.1' WITH GRANT OPTION;"
  set_env_line IDEM_TEST_MYSQL_URL "$url"
}

stop() { stop_pid_server IDEM_TEST_MYSQL_URL; }

restart() {
  local pid
  pid="$(our_pid)" || { echo "mariadb.sh: not running; use start" >&2; exit 1; }
  kill -9 "$pid"
  wait_for gone
  rm -f "$pidfile"
  launch
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) restart ;;
  status) answers ;;
  url) echo "$url" ;;
  *) echo "usage: $0 start|stop|restart|status|url" >&2; exit 2 ;;
esac
