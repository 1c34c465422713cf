# Shared by the test-server scripts in scripts/servers/ (sourced, not run).
# The caller sets: env_file (build/test-servers.env), port, and pidfile where it has one.

# Sets NAME=VALUE in $env_file, replacing any earlier NAME line; an empty VALUE
# removes the line. Written through a temporary file so a reader never sees half of it.
set_env_line() {
  mkdir -p "$(dirname "$env_file")"
  local tmp
  tmp="$(mktemp "$env_file.XXXXXX")"
  if [ -f "$env_file" ]; then grep -v "^$1=" "$env_file" >"$tmp" || true; fi
  if [ -n "${2:-}" ]; then echo "$1=$2" >>"$tmp"; fi
  mv "$tmp" "$env_file"
}

# The server's pid when the pid file names a live process.
# The server removes its pid file as it exits, so read it once, quietly.
our_pid() {
  local p
  p="$(cat "$pidfile" 2>/dev/null)" && [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"
}

# Something listens on 127.0.0.1:$port.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

# Polls the check function $1 every 50 ms for up to 30 s; returns 1 if it never held.
wait_for() {
  for _ in $(seq 600); do "$1" && return 0; sleep 0.05; done
  return 1
}

# Stops the server whose pid file is $pidfile (SIGTERM, SIGKILL if it outlives
# wait_for gone), deletes its folder $dir and clears the env line named $1.
stop_pid_server() {
  local pid
  if pid="$(our_pid)"; then
    kill "$pid"
    wait_for gone || kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
  rmdir "$(dirname "$dir")" 2>/dev/null || true  # the other servers may still use it
  set_env_line "$1" ""
}
