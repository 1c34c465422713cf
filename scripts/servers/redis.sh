#!/usr/bin/env bash
# A throwaway redis-server for the tests: 127.0.0.1 only, a private port, no
# persistence (--save '', no AOF) and a private folder under /tmp.
#
#   redis.sh start    start and wait until it answers PING; a second start while
#                     it runs changes nothing
#   redis.sh stop     stop it and delete its folder
#   redis.sh kill     SIGKILL it, as a crash would (tests use it; start again after)
#   redis.sh status   exit 0 while it answers
#   redis.sh url      print the connection URL
#
# start writes IDEM_TEST_REDIS_URL=… into build/test-servers.env, keeping the
# other lines; stop removes it. The port (IDEM_TEST_REDIS_PORT) defaults to one
# derived from the checkout path, so two checkouts on one machine do not collide.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/lib/test_server.sh"
slot=$(( $(printf '%s' "$root" | cksum | cut -d' ' -f1) % 1000 ))
# Below 32768, outside the kernel's ephemeral port range (see postgres.sh).
port="${IDEM_TEST_REDIS_PORT:-$((24000 + slot))}"
dir="${IDEM_TEST_SERVERS_DIR:-/tmp/idem-test-servers-$slot}/redis"
pidfile="$dir/redis.pid"
env_file="$root/build/test-servers.env"
url="redis://127.0.0.1:$port"

command -v redis-server >/dev/null || {
  echo "redis.sh: redis-server not found (install the 'redis-server' package: scripts/install-deps.sh)" >&2
  exit 1
}

answers() { [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]; }

start() {
  if our_pid >/dev/null && answers; then set_env_line IDEM_TEST_REDIS_URL "$url"; return; fi
  if port_taken; then
    echo "redis.sh: port $port is used by another program; set IDEM_TEST_REDIS_PORT" >&2
    exit 1
  fi
  mkdir -p "$dir"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$pidfile" --logfile "$dir/redis.log" >/dev/null
  wait_for answers || { echo "redis.sh: redis-server did not answer on port $port" >&2; tail -n 20 "$dir/redis.log" >&2; exit 1; }
  set_env_line IDEM_TEST_REDIS_URL "$url"
}

# The port is closed once the server has exited. (Its pid may linger as a zombie
# for a while where the container's init reaps slowly.)
gone() { ! port_taken; }

stop() { stop_pid_server IDEM_TEST_REDIS_URL; }

crash() {
  local pid
  pid="$(our_pid)" || { echo "redis.sh: not running" >&2; exit 1; }
  kill -9 "$pid"
  wait_for gone
  rm -f "$pidfile"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  kill) crash ;;
  status) answers ;;
  url) echo "$url" ;;
  *) echo "usage: $0 start|stop|kill|status|url" >&2; exit 2 ;;
esac
