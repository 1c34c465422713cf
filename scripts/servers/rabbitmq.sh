#!/usr/bin/env bash
# A private RabbitMQ node for the tests, on 127.0.0.1 only.
#
#   scripts/servers/rabbitmq.sh start     start it (idempotent) and append
#                                         IDEM_TEST_AMQP_URL to build/test-servers.env
#   scripts/servers/rabbitmq.sh stop      stop it and delete its data (idempotent)
#   scripts/servers/rabbitmq.sh status    exit 0 when it is running
#   scripts/servers/rabbitmq.sh ctl ARGS  rabbitmqctl against this node (the tests use
#                                         `ctl stop_app` / `ctl start_app` to restart the broker)
#
# Nothing is shared with a system RabbitMQ: own node name, AMQP, distribution and
# epmd ports, data and log folders under build/rabbitmq, own HOME (Erlang cookie),
# no plugins. The ports are derived from this checkout's path, so two worktrees on
# one machine do not collide; override with IDEM_RABBITMQ_PORT (it uses PORT..PORT+13).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${IDEM_BUILD_DIR:-$root/build}"
base="$build/rabbitmq"
sum=$(printf '%s' "$root" | cksum | cut -d' ' -f1)
# 25000-32593: below the kernel's ephemeral port range (32768-60999), where any
# outgoing connection may hold a port and the broker would fail to bind.
port="${IDEM_RABBITMQ_PORT:-$((25000 + (sum % 380) * 20))}"
node="idem-$((sum % 100000))@localhost"
bin=/usr/lib/rabbitmq/bin

export HOME="$base/home"
export RABBITMQ_NODENAME="$node"
export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export RABBITMQ_NODE_PORT="$port"
export RABBITMQ_DIST_PORT="$((port + 1))"
export ERL_EPMD_ADDRESS=127.0.0.1
export ERL_EPMD_PORT="$((port + 2))"
# rabbitmqctl is an Erlang node too; keep its distribution ports private as well.
export RABBITMQ_CTL_DIST_PORT_MIN="$((port + 3))"
export RABBITMQ_CTL_DIST_PORT_MAX="$((port + 13))"
export RABBITMQ_MNESIA_BASE="$base/mnesia"
export RABBITMQ_LOG_BASE="$base/log"
export RABBITMQ_PID_FILE="$base/rabbitmq.pid"
export RABBITMQ_CONF_ENV_FILE="$base/rabbitmq-env.conf"
export RABBITMQ_CONFIG_FILE="$base/rabbitmq"   # .conf is appended by the server
export RABBITMQ_ENABLED_PLUGINS_FILE="$base/enabled_plugins"
export RABBITMQ_ADVANCED_CONFIG_FILE="$base/advanced.config"
# A failing rabbitmqctl would otherwise leave erl_crash.dump in the current folder.
export ERL_CRASH_DUMP="$base/erl_crash.dump"
url="amqp://guest:guest@127.0.0.1:$port/%2f"

ctl() { "$bin/rabbitmqctl" -n "$node" "$@"; }

# Without its HOME (and Erlang cookie) the node cannot be ours or running.
running() { [ -d "$HOME" ] && ctl status >/dev/null 2>&1; }

write_env() {
  local env_file="$build/test-servers.env"
  mkdir -p "$build"
  touch "$env_file"
  # Replace only our own lines; other servers' scripts write theirs to the same file.
  grep -v -e '^IDEM_TEST_AMQP_URL=' -e '^IDEM_TEST_RABBITMQ_SCRIPT=' "$env_file" >"$env_file.tmp" || true
  {
    echo "IDEM_TEST_AMQP_URL=$url"
    echo "IDEM_TEST_RABBITMQ_SCRIPT=$root/scripts/servers/rabbitmq.sh"
  } >>"$env_file.tmp"
  mv "$env_file.tmp" "$env_file"
}

start() {
  if [ ! -x "$bin/rabbitmq-server" ]; then
    echo "rabbitmq.sh: rabbitmq-server is not installed; run scripts/install-deps.sh as root" >&2
    exit 1
  fi
  if running; then
    write_env
    return 0
  fi
  mkdir -p "$HOME" "$RABBITMQ_MNESIA_BASE" "$RABBITMQ_LOG_BASE"
  : >"$RABBITMQ_CONF_ENV_FILE"
  echo '[].' >"$RABBITMQ_ENABLED_PLUGINS_FILE"
  echo '[].' >"$RABBITMQ_ADVANCED_CONFIG_FILE"
  cat >"$RABBITMQ_CONFIG_FILE.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$port
loopback_users.guest = true
# A shared CI machine may have little free disk; the tests need very little.
disk_free_limit.absolute = 50MB
EOF
  # setsid: the node must outlive this script and not get the test runner's signals.
  setsid "$bin/rabbitmq-server" >"$RABBITMQ_LOG_BASE/stdout.log" 2>&1 </dev/null &
  local pid=$! deadline=$((SECONDS + 120))
  # await_startup gives up at once while the node's distribution is not up yet,
  # and each rabbitmqctl call costs seconds; so first wait (cheaply) for the AMQP
  # listener, which opens at the end of the boot, then let await_startup confirm.
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && ctl await_startup --timeout 60 >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "rabbitmq.sh: the node did not start; last lines of $RABBITMQ_LOG_BASE/stdout.log:" >&2
      tail -n 30 "$RABBITMQ_LOG_BASE/stdout.log" >&2 || true
      exit 1
    fi
    sleep 0.2
  done
  write_env
  echo "rabbitmq.sh: $node listening on 127.0.0.1:$port" >&2
}

stop() {
  if running; then
    ctl stop "$RABBITMQ_PID_FILE" >/dev/null 2>&1 || true
  fi
  # Our private epmd (only ours listens on this port).
  if command -v epmd >/dev/null 2>&1; then epmd -kill >/dev/null 2>&1 || true
  elif [ -x /usr/lib/erlang/bin/epmd ]; then /usr/lib/erlang/bin/epmd -kill >/dev/null 2>&1 || true
  fi
  rm -rf "$base"
  if [ -f "$build/test-servers.env" ]; then
    grep -v -e '^IDEM_TEST_AMQP_URL=' -e '^IDEM_TEST_RABBITMQ_SCRIPT=' "$build/test-servers.env" \
      >"$build/test-servers.env.tmp" || true
    mv "$build/test-servers.env.tmp" "$build/test-servers.env"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) running ;;
  url) echo "$url" ;;
  ctl) shift; ctl "$@" ;;
  *) echo "usage: $0 start|stop|status|url|ctl ARGS..." >&2; exit 2 ;;
esac
